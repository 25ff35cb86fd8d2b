// Test clocks: simulated time for customers of the test environment (API.md part D). A clock
// moves only forward, by `advance`, which runs everything its customers' subscriptions and
// invoices make due in between, in time order, through the run's own code (./advance.ts).
import type { Db, Queryable } from '../db/pool.ts';
import {
  unitOfWork,
  type UnitOfWork,
  type WriteRequest,
  type Written,
} from '../db/unit-of-work.ts';
import {
  ParameterInvalidError,
  ResourceMissingError,
  StateInvalidError,
  TestModeOnlyError,
} from '../errors.ts';
import { newId } from '../ids.ts';
import type { PageRequest } from '../paging.ts';
import type { TenantScope } from '../tenancy.ts';
import type { TestClock, TestClockAdvance, TestClockCreate } from './schemas.ts';
import {
  deleteTestClock as deleteClockRows,
  insertTestClock,
  moveTestClock,
  selectTestClock,
  selectTestClockPage,
  type TestClockRow,
} from './store.ts';

export function testClockFromRow(row: TestClockRow): TestClock {
  return {
    id: row.id,
    object: 'test_clock',
    name: row.name,
    frozenTime: row.frozen_time.toISOString(),
    status: row.status,
    advancingTo: row.advance_to?.toISOString() ?? null,
    environment: row.environment,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function testOnly(scope: TenantScope): void {
  if (scope.environment !== 'test') throw new TestModeOnlyError('Test clocks');
}

async function clockRow(
  db: Queryable,
  scope: TenantScope,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<TestClockRow> {
  testOnly(scope);
  const row = await selectTestClock(db, scope, id, options);
  if (!row) throw new ResourceMissingError('test_clock', id);
  return row;
}

/** A write of test clocks: only in the test environment, in one unit of work. */
function clockWrite<T>(
  db: Db,
  request: WriteRequest,
  work: (uow: UnitOfWork) => Promise<T>,
): Promise<Written<T>> {
  testOnly(request.actor);
  return unitOfWork(db, request, work);
}

export function createTestClock(
  db: Db,
  request: WriteRequest,
  input: TestClockCreate,
): Promise<Written<TestClock>> {
  return clockWrite(db, request, async (uow) => {
    const row = await insertTestClock(uow.tx, uow.actor, newId('clock'), {
      name: input.name ?? null,
      frozenTime: new Date(input.frozenTime),
    });
    const clock = testClockFromRow(row);
    uow.event('test_clock.created', clock);
    return clock;
  });
}

export async function getTestClock(db: Db, scope: TenantScope, id: string): Promise<TestClock> {
  return testClockFromRow(await clockRow(db, scope, id));
}

export async function listTestClocks(db: Db, scope: TenantScope, page: PageRequest) {
  testOnly(scope);
  return selectTestClockPage(db, scope, {}, page);
}

/** The latest instant an advance may reach: two calendar years past the clock's time (UTC). */
function latestAdvance(from: Date): Date {
  const latest = new Date(from.getTime());
  latest.setUTCFullYear(latest.getUTCFullYear() + 2);
  return latest;
}

/**
 * Starts an advance: the clock is `advancing` towards `frozenTime` when this commits, and the
 * caller runs it (./advance.ts). To the clock's own time it is answered as it is.
 */
export function advanceTestClock(
  db: Db,
  request: WriteRequest,
  id: string,
  input: TestClockAdvance,
): Promise<Written<TestClock>> {
  return clockWrite(db, request, async (uow) => {
    const row = await clockRow(uow.tx, uow.actor, id, { forUpdate: true });
    if (row.status === 'advancing') {
      throw new StateInvalidError(
        `Test clock ${id} is advancing to ${row.advance_to!.toISOString()}; wait until it is ready.`,
      );
    }
    const target = new Date(input.frozenTime);
    if (target < row.frozen_time) {
      throw new ParameterInvalidError(
        'frozenTime',
        `A test clock moves only forward; it is at ${row.frozen_time.toISOString()}.`,
      );
    }
    if (target > latestAdvance(row.frozen_time)) {
      throw new ParameterInvalidError(
        'frozenTime',
        'An advance may reach at most two calendar years past the clock’s time.',
      );
    }
    if (target.getTime() === row.frozen_time.getTime()) return testClockFromRow(row);
    const moved = await moveTestClock(uow.tx, uow.actor, id, row.frozen_time, target);
    const clock = testClockFromRow(moved);
    uow.event('test_clock.advancing', clock);
    return clock;
  });
}

/** Deletes a clock with its customers' subscriptions and drafts; 409 while it advances. */
export function deleteTestClock(
  db: Db,
  request: WriteRequest,
  id: string,
): Promise<Written<{ id: string; object: 'test_clock'; deleted: true }>> {
  return clockWrite(db, request, async (uow) => {
    const row = await clockRow(uow.tx, uow.actor, id, { forUpdate: true });
    if (row.status === 'advancing') {
      throw new StateInvalidError(`Test clock ${id} is advancing; delete it once it is ready.`);
    }
    await deleteClockRows(uow.tx, uow.actor, id);
    // The event carries the clock as it was when it was deleted.
    uow.event('test_clock.deleted', testClockFromRow(row));
    return { id, object: 'test_clock' as const, deleted: true as const };
  });
}
