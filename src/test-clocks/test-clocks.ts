// The test clocks service as the composition root makes it: the rules bound to the database,
// with each advance run in the background by this process once it is committed.
import type { WriteRequest } from '../db/unit-of-work.ts';
import type { PageRequest } from '../paging.ts';
import type { RunDeps } from '../subscriptions/run.ts';
import type { TenantScope } from '../tenancy.ts';
import { TestClockAdvances } from './advance.ts';
import type { TestClockAdvance, TestClockCreate } from './schemas.ts';
import {
  advanceTestClock,
  createTestClock,
  deleteTestClock,
  getTestClock,
  listTestClocks,
} from './service.ts';

export function createTestClocks(deps: RunDeps) {
  const { db } = deps;
  const advances = new TestClockAdvances(deps);
  return {
    create: (write: WriteRequest, input: TestClockCreate) => createTestClock(db, write, input),
    get: (scope: TenantScope, id: string) => getTestClock(db, scope, id),
    list: (scope: TenantScope, page: PageRequest) => listTestClocks(db, scope, page),
    advance: async (write: WriteRequest, id: string, input: TestClockAdvance) => {
      const written = await advanceTestClock(db, write, id, input);
      // Run after commit; a replay of the request goes on with an advance a crash cut short.
      advances.start(write.actor, id);
      return written;
    },
    remove: (write: WriteRequest, id: string) => deleteTestClock(db, write, id),
    advances,
  };
}

export type TestClocks = ReturnType<typeof createTestClocks>;
