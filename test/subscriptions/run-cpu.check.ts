// The billing run's CPU per invoice, measured rather than checked (run it by name:
// `npm test test/subscriptions/run-cpu.check.ts`; RUN_CPU_SUBSCRIPTIONS, 2,000 by default):
// the subscriptions of boundaryScene cross their boundary on a test clock, and from the advance
// until the clock is ready this process's CPU (the server runs in it: API and run) and that of
// the PostgreSQL backends of the test's database are read, each per invoice. The backends are
// sampled from /proc while the run goes on (a backend that ends between two samples loses what
// it spent since the last one), so PostgreSQL must run on this machine. Figures in
// bench/README.md ("Billing run").
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { processCpu } from '../../bench/cpu.ts';
import { waitFor } from '../helpers.ts';
import { startInvoiceApp, tenantApi } from '../invoices/fixtures.ts';
import { boundaryScene, PAST_BOUNDARY } from './fixtures.ts';

const SUBSCRIPTIONS = Number(process.env.RUN_CPU_SUBSCRIPTIONS ?? 2000);

/** The CPU seconds of each backend of `database` running now, by pid. */
async function backendCpu(database: string): Promise<Map<string, number>> {
  const cpu = new Map<string, number>();
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const title = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (!title.startsWith('postgres: ') || !title.includes(` ${database} `)) continue;
    cpu.set(pid, await processCpu(Number(pid)));
  }
  return cpu;
}

describe('the billing run’s CPU', () => {
  it(`measures the CPU per invoice of ${SUBSCRIPTIONS} invoices made and issued`, async (t) => {
    const server = await startInvoiceApp({ runWorker: false });
    const { api } = await tenantApi(server);
    const database = new URL(server.databaseUrl).pathname.slice(1);
    const { clockId } = await boundaryScene(api, SUBSCRIPTIONS);

    const first = await backendCpu(database);
    const last = new Map(first);
    // What the sampling costs this process is not the run's.
    let sampling = 0;
    const sample = async () => {
      const before = process.cpuUsage();
      for (const [pid, cpu] of await backendCpu(database)) last.set(pid, cpu);
      const spent = process.cpuUsage(before);
      sampling += (spent.user + spent.system) / 1e6;
    };
    const started = process.cpuUsage();
    const startedAt = performance.now();
    const advanced = await api.post(`/v1/test-clocks/${clockId}/advance`, {
      frozenTime: PAST_BOUNDARY,
    });
    assert.equal(advanced.status, 202, advanced.text);
    await waitFor(
      async () => {
        await sample();
        const clock = await server.db.query<{ status: string }>(
          'SELECT status FROM test_clocks WHERE id = $1',
          [clockId],
        );
        return clock.rows[0]!.status === 'ready';
      },
      'the clock to be ready',
      600_000,
      250,
    );
    const used = process.cpuUsage(started);
    const seconds = (performance.now() - startedAt) / 1000;
    let postgres = 0;
    for (const [pid, cpu] of last) postgres += cpu - (first.get(pid) ?? 0);

    const issued = await server.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM invoices
        WHERE billing_reason = 'subscription_cycle' AND status = 'open'`,
    );
    assert.equal(issued.rows[0]!.n, SUBSCRIPTIONS);
    const ms = (cpuSeconds: number) => ((cpuSeconds * 1000) / SUBSCRIPTIONS).toFixed(2);
    const node = (used.user + used.system) / 1e6 - sampling;
    t.diagnostic(
      `${SUBSCRIPTIONS} invoices in ${seconds.toFixed(1)} s: Node ${ms(node)} ms, ` +
        `PostgreSQL ${ms(postgres)} ms of CPU per invoice`,
    );
  });
});
