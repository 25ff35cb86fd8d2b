// The usage service as the composition root makes it: meters, events in, and summaries, bound
// to the database and the clock, with the rule that closes billed periods given by whoever
// bills usage.
import type { WriteRequest } from '../db/unit-of-work.ts';
import type { PageRequest } from '../paging.ts';
import type { TenantScope } from '../tenancy.ts';
import type { IngestionDeps } from './ingestion.ts';
import type { MeterCreate, MeterUpdate, UsageSummaryQuery } from './schemas.ts';
import {
  createMeter,
  getMeter,
  listMeters,
  recordUsageEvents,
  summarizeUsage,
  updateMeter,
} from './service.ts';

export function createUsage(deps: IngestionDeps) {
  const { db } = deps;
  return {
    meters: {
      create: (write: WriteRequest, input: MeterCreate) => createMeter(db, write, input),
      get: (scope: TenantScope, id: string) => getMeter(db, scope, id),
      list: (scope: TenantScope, page: PageRequest) => listMeters(db, scope, {}, page),
      update: (write: WriteRequest, id: string, patch: MeterUpdate) =>
        updateMeter(db, write, id, patch),
    },
    record: (write: WriteRequest, events: readonly unknown[]) =>
      recordUsageEvents(deps, write, events),
    summarize: (scope: TenantScope, meterId: string, query: UsageSummaryQuery) =>
      summarizeUsage(db, scope, meterId, query),
  };
}

export type Usage = ReturnType<typeof createUsage>;
