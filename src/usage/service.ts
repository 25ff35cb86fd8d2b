// Usage rules: meters, which never change what they measure, and the aggregation of a meter's
// usage for a customer over [from, to) that subscriptions bill metered prices with
// (docs/usage.md).
import { getCustomerRow, customerTimeZone } from '../customers/service.ts';
import type { Db, Queryable } from '../db/pool.ts';
import { unitOfWork, type WriteRequest, type Written } from '../db/unit-of-work.ts';
import { ParameterInvalidError, ParameterMissingError, ResourceMissingError } from '../errors.ts';
import { newId } from '../ids.ts';
import { getSettingsRow } from '../settings/service.ts';
import type { TenantScope } from '../tenancy.ts';
import { selectAggregates } from './aggregation-store.ts';
import { splitByHour, summaryBuckets } from './buckets.ts';
import { backfillRollups, lockUsageMeters } from './events-store.ts';
import type {
  Meter,
  MeterCreate,
  MeterUpdate,
  UsageSummaries,
  UsageSummaryQuery,
} from './schemas.ts';
import {
  insertMeter,
  selectMeter,
  selectMeterPage,
  selectMeters,
  updateMeter as updateMeterRow,
  type MeterRow,
} from './store.ts';

export { recordUsageEvents, type ClosedBefore } from './ingestion.ts';
export type { Meter } from './schemas.ts';

export function meterFromRow(row: MeterRow): Meter {
  return {
    id: row.id,
    object: 'meter',
    eventName: row.event_name,
    aggregation: row.aggregation,
    valueProperty: row.value_property,
    displayName: row.display_name,
    status: row.status,
    environment: row.environment,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The property a meter reads: none for count, required for the others. */
function checkedValueProperty(input: MeterCreate): string | null {
  if (input.aggregation === 'count') {
    if (input.valueProperty === undefined) return null;
    throw new ParameterInvalidError(
      'valueProperty',
      'A count meter counts events and reads no property: leave valueProperty out.',
    );
  }
  if (input.valueProperty === undefined) {
    throw new ParameterMissingError(
      'valueProperty',
      `A ${input.aggregation} meter needs valueProperty: the property of its events it reads.`,
    );
  }
  return input.valueProperty;
}

/**
 * Creates a meter and rolls up the events of its name kept before it, in one transaction that
 * holds ingestion of the tenant and environment back (lockUsageMeters): the meter measures
 * every event, whenever it arrived.
 */
export function createMeter(
  db: Db,
  request: WriteRequest,
  input: MeterCreate,
): Promise<Written<Meter>> {
  const valueProperty = checkedValueProperty(input);
  return unitOfWork(db, request, async ({ tx, actor }) => {
    await lockUsageMeters(tx, actor, 'exclusive');
    const row = await insertMeter(tx, actor, newId('mtr'), {
      event_name: input.eventName,
      aggregation: input.aggregation,
      value_property: valueProperty,
      display_name: input.displayName,
      status: input.status ?? 'active',
    });
    await backfillRollups(tx, actor, row.id);
    return meterFromRow(row);
  });
}

async function meterRow(db: Queryable, scope: TenantScope, id: string): Promise<MeterRow> {
  const row = await selectMeter(db, scope, id);
  if (!row) throw new ResourceMissingError('meter', id);
  return row;
}

export async function getMeter(db: Queryable, scope: TenantScope, id: string): Promise<Meter> {
  return meterFromRow(await meterRow(db, scope, id));
}

/** The meters among `ids`, by id, in one query; ids of no meter here are simply absent. */
export async function getMeters(
  db: Queryable,
  scope: TenantScope,
  ids: readonly string[],
): Promise<Map<string, Meter>> {
  const rows = await selectMeters(db, scope, ids);
  return new Map(rows.map((row) => [row.id, meterFromRow(row)]));
}

/** Changes only the display name and the status: what a meter measures never changes. */
export function updateMeter(
  db: Db,
  request: WriteRequest,
  id: string,
  patch: MeterUpdate,
): Promise<Written<Meter>> {
  return unitOfWork(db, request, async ({ tx, actor }) => {
    const current = await selectMeter(tx, actor, id, { forUpdate: true });
    if (!current) throw new ResourceMissingError('meter', id);
    const row = await updateMeterRow(tx, actor, id, {
      display_name: patch.displayName ?? current.display_name,
      status: patch.status ?? current.status,
    });
    return meterFromRow(row);
  });
}

/** One page of meters, newest first (the store's page reader). */
export const listMeters = selectMeterPage;

/**
 * The meter's aggregation over the customer's events with from ≤ timestamp < to, exact: a
 * canonical decimal text ('0' when there are none, also for `last`).
 */
export async function aggregateUsage(
  db: Queryable,
  scope: TenantScope,
  meterId: string,
  customerId: string,
  from: Date,
  to: Date,
): Promise<string> {
  const meter = await meterRow(db, scope, meterId);
  if (!(from < to)) return '0';
  const values = await selectAggregates(
    db,
    scope,
    meter,
    customerId,
    splitByHour([{ start: from, end: to }]),
  );
  return values.get(0) ?? '0';
}

// Summaries keep to years the calendar computes with.
const FIRST_SUMMARY_INSTANT = Date.UTC(1970, 0, 1);
const LAST_SUMMARY_INSTANT = Date.UTC(9999, 11, 31);

/** The meter's usage by the customer over [from, to), in buckets of its local calendar. */
export async function summarizeUsage(
  db: Queryable,
  scope: TenantScope,
  meterId: string,
  query: UsageSummaryQuery,
): Promise<UsageSummaries> {
  const from = new Date(query.from);
  const to = new Date(query.to);
  for (const [param, at] of [['from', from] as const, ['to', to] as const]) {
    if (!(at.getTime() >= FIRST_SUMMARY_INSTANT && at.getTime() <= LAST_SUMMARY_INSTANT)) {
      throw new ParameterInvalidError(param, `${param} must fall within the years 1970 to 9999.`);
    }
  }
  if (!(from < to)) throw new ParameterInvalidError('to', 'to must be after from.');
  const meter = await meterRow(db, scope, meterId);
  const customer = await getCustomerRow(db, scope, query.customerId);
  const timeZone = customerTimeZone(customer, await getSettingsRow(db, scope));
  const buckets = summaryBuckets(from, to, query.granularity ?? 'none', timeZone);
  const values = await selectAggregates(db, scope, meter, customer.id, splitByHour(buckets));
  return {
    data: buckets.map((bucket, i) => ({
      start: bucket.start.toISOString(),
      end: bucket.end.toISOString(),
      value: values.get(i) ?? '0',
    })),
  };
}
