// What "now" is for a customer: the wall clock's time, or its test clock's frozen time. Every
// subscription write and the run read the time through here, so a customer on a test clock
// lives on the clock's time (API.md part D, "Test clocks").
import type { Clock } from '../clock.ts';
import type { Queryable } from '../db/pool.ts';
import { ResourceMissingError, TestModeOnlyError } from '../errors.ts';
import type { TenantScope } from '../tenancy.ts';
import { selectTestClock } from './store.ts';

export async function timeOn(
  db: Queryable,
  scope: TenantScope,
  testClockId: string | null,
  clock: Clock,
): Promise<Date> {
  if (testClockId === null) return clock.now();
  const row = await selectTestClock(db, scope, testClockId);
  if (!row) throw new ResourceMissingError('test_clock', testClockId, 'testClockId');
  return row.frozen_time;
}

/** A test clock a customer is put on: of this tenant, in the test environment. */
export async function checkedTestClock(
  db: Queryable,
  scope: TenantScope,
  id: string,
): Promise<string> {
  if (scope.environment !== 'test') throw new TestModeOnlyError('Test clocks');
  const row = await selectTestClock(db, scope, id);
  if (!row) throw new ResourceMissingError('test_clock', id, 'testClockId');
  return id;
}
