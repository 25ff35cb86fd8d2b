// Usage events in: each event of a batch counts once per tenant, environment and id, and gets
// an outcome of its own, in the order sent (docs/usage.md, "Sending events"). The batch is one
// transaction, committed before the answer: an accepted event is durable when it is answered.
import type { Clock } from '../clock.ts';
import { getCustomerClocks } from '../customers/service.ts';
import type { Db, Queryable } from '../db/pool.ts';
import {
  unitOfWork,
  type UnitOfWork,
  type WriteRequest,
  type Written,
} from '../db/unit-of-work.ts';
import type { TenantScope } from '../tenancy.ts';
import { timeOn } from '../test-clocks/time.ts';
import {
  checkEvent,
  type CheckedEvent,
  type EventRefusal,
  type UsageEventRecord,
} from './events.ts';
import { insertUsageEvents, lockUsageMeters, selectContentHashes } from './events-store.ts';
import type { UsageEventOutcome, UsageEventOutcomes } from './schemas.ts';
import { selectActiveMetersOf, type MeterRow } from './store.ts';
import { isMeterValue, valueRule } from './values.ts';

/**
 * Where each customer's usage is closed, by customer id: an event before that instant falls in
 * a period whose invoice is issued (usage_period_closed). Given by whoever bills usage; it
 * runs in the batch's transaction, asked of every customer id the batch names (known or not)
 * in the round trip that reads the customers.
 */
export type ClosedBefore = (
  tx: Queryable,
  scope: TenantScope,
  customerIds: readonly string[],
) => Promise<Map<string, Date>>;

/**
 * What the events a batch kept change elsewhere, in the batch's transaction (a draft still in
 * its grace period measures its usage again); `now` is each customer's time.
 */
export type UsageKept = (
  uow: UnitOfWork,
  kept: readonly { customerId: string; timestamp: Date; now: Date }[],
) => Promise<void>;

export interface IngestionDeps {
  db: Db;
  clock: Clock;
  closedBefore?: ClosedBefore | undefined;
  onKept?: UsageKept | undefined;
}

const DAY_MS = 86_400_000;
/** How old an event may be, and how far ahead of its customer's time. */
const MAX_AGE_MS = 35 * DAY_MS;
const MAX_AHEAD_MS = 5 * 60_000;

/** What the database says about a batch's events: their meters, customers, times, closings. */
interface BatchContext {
  activeMeters: Map<string, MeterRow[]>;
  /** Each known customer's current time: its test clock's, or the clock's. */
  customerNow: Map<string, Date>;
  closed: Map<string, Date>;
}

function groupByEventName(meters: readonly MeterRow[]): Map<string, MeterRow[]> {
  const groups = new Map<string, MeterRow[]>();
  for (const meter of meters)
    groups.set(meter.event_name, [...(groups.get(meter.event_name) ?? []), meter]);
  return groups;
}

async function readContext(
  tx: Queryable,
  scope: TenantScope,
  events: readonly UsageEventRecord[],
  deps: IngestionDeps,
): Promise<BatchContext> {
  const names = [...new Set(events.map((e) => e.eventName))];
  const customerIds = [...new Set(events.map((e) => e.customerId))];
  // Sent together: the lock first, then the reads, in one round trip (where usage is closed is
  // asked of every id sent: an id of no customer has no closing).
  const [, meters, customers, closed] = await Promise.all([
    lockUsageMeters(tx, scope, 'shared'),
    names.length === 0 ? [] : selectActiveMetersOf(tx, scope, names),
    getCustomerClocks(tx, scope, customerIds),
    deps.closedBefore && customerIds.length > 0
      ? deps.closedBefore(tx, scope, customerIds)
      : new Map<string, Date>(),
  ]);
  const clockTimes = new Map<string | null, Date>();
  const customerNow = new Map<string, Date>();
  for (const [id, clockId] of customers) {
    let now = clockTimes.get(clockId);
    if (now === undefined) {
      now = await timeOn(tx, scope, clockId, deps.clock);
      clockTimes.set(clockId, now);
    }
    customerNow.set(id, now);
  }
  return { activeMeters: groupByEventName(meters), customerNow, closed };
}

/** Why the event cannot count, by its meters, customer and time; undefined if it can. */
function refusalOf(event: UsageEventRecord, context: BatchContext): EventRefusal | undefined {
  for (const meter of context.activeMeters.get(event.eventName) ?? []) {
    const property = meter.value_property;
    const value =
      property !== null && Object.hasOwn(event.properties, property)
        ? event.properties[property]
        : undefined;
    if (!isMeterValue(meter.aggregation, value)) {
      return {
        code: 'parameter_invalid',
        message: `properties.${property} must be ${valueRule(meter.aggregation)}: meter ${meter.id} (${meter.aggregation}) reads it.`,
      };
    }
  }
  const now = context.customerNow.get(event.customerId);
  if (now === undefined) {
    return { code: 'resource_missing', message: `No such customer: '${event.customerId}'.` };
  }
  const at = event.occurredAt.getTime();
  if (at < now.getTime() - MAX_AGE_MS || at > now.getTime() + MAX_AHEAD_MS) {
    return {
      code: 'timestamp_out_of_range',
      message: `timestamp must be at most 35 days before and 5 minutes after the customer's current time (${now.toISOString()}).`,
    };
  }
  const closedBefore = context.closed.get(event.customerId);
  if (closedBefore !== undefined && event.occurredAt < closedBefore) {
    return {
      code: 'usage_period_closed',
      message: `The customer's usage before ${closedBefore.toISOString()} is invoiced: its period is closed.`,
    };
  }
  return undefined;
}

const accepted = (id: string): UsageEventOutcome => ({ id, status: 'accepted' });
const duplicate = (id: string): UsageEventOutcome => ({ id, status: 'duplicate' });
const refusedAs = (id: string | null, error: EventRefusal): UsageEventOutcome => ({
  id,
  status: 'error',
  error,
});

/** The outcome of an event whose id is kept under other content, or the same. */
function againstKept(id: string, hash: Buffer | undefined, kept: Buffer): UsageEventOutcome {
  if (hash?.equals(kept)) return duplicate(id);
  return refusedAs(id, {
    code: 'idempotency_key_reused',
    message: `An event with id '${id}' was accepted before with other content; an id counts once.`,
  });
}

/**
 * Takes a batch: every event checked on its own; the first that may count of each id kept if
 * the id is new (one statement, with the rollups); then each event answered in order. An id
 * kept before this batch, or earlier in it, answers duplicate or idempotency_key_reused
 * whatever else is true of the event, so a retry of an accepted event is never told it
 * failed, even once its time or its meters would refuse it.
 */
export function recordUsageEvents(
  deps: IngestionDeps,
  request: WriteRequest,
  sent: readonly unknown[],
): Promise<Written<UsageEventOutcomes>> {
  const checked: CheckedEvent[] = sent.map(checkEvent);
  return unitOfWork(deps.db, request, async (uow) => {
    const { tx, actor } = uow;
    const shaped = checked.flatMap((c) => (c.event ? [c.event] : []));
    const context = await readContext(tx, actor, shaped, deps);
    const judged = checked.map((c): CheckedEvent => {
      const refusal = c.event && refusalOf(c.event, context);
      return refusal ? { ...c, refusal } : c;
    });
    // The first event of each id that may count: the one the batch tries to keep.
    const firstOf = new Map<string, number>();
    judged.forEach((j, i) => {
      if (j.event && !j.refusal && !firstOf.has(j.id)) firstOf.set(j.id, i);
    });
    const candidates = [...firstOf.values()].map((i) => judged[i]!.event!);
    const { kept, otherContent } = await insertUsageEvents(tx, actor, candidates);
    // What is stored under each id the batch did not keep: a candidate not kept is stored with
    // its own content unless the insert said otherwise; an id with no candidate (all of its
    // events refused) is looked up.
    const keptBefore = new Map<string, Buffer>();
    for (const e of candidates) {
      if (!kept.has(e.id)) keptBefore.set(e.id, otherContent.get(e.id) ?? e.hash);
    }
    const refusedOnly = [
      ...new Set(judged.flatMap((j) => (j.id !== null && !firstOf.has(j.id) ? [j.id] : []))),
    ];
    if (refusedOnly.length > 0) {
      for (const [id, hash] of await selectContentHashes(tx, actor, refusedOnly))
        keptBefore.set(id, hash);
    }
    const keptNow = candidates.filter((e) => kept.has(e.id));
    if (deps.onKept && keptNow.length > 0) {
      await deps.onKept(
        uow,
        keptNow.map((e) => ({
          customerId: e.customerId,
          timestamp: e.occurredAt,
          now: context.customerNow.get(e.customerId)!,
        })),
      );
    }
    const data = judged.map((j, i): UsageEventOutcome => {
      if (j.id === null) return refusedAs(j.sentId, j.refusal!);
      const first = firstOf.get(j.id);
      if (kept.has(j.id)) {
        if (first === i) return accepted(j.id);
        // Kept by an earlier event of this batch; an event before it is answered on its own.
        if (first! < i) return againstKept(j.id, j.event?.hash, judged[first!]!.event!.hash);
        return refusedAs(j.id, j.refusal!);
      }
      const hash = keptBefore.get(j.id);
      if (hash !== undefined) return againstKept(j.id, j.event?.hash, hash);
      if (j.refusal) return refusedAs(j.id, j.refusal);
      throw new Error(`usage event ${j.id} was neither kept nor found`);
    });
    return { data };
  });
}
