// One tenant cannot slow another (API.md part C): while one tenant renders long PDFs and
// creates webhook endpoints on hosts whose DNS never answers, another tenant's reads keep
// their latency. Judged as a ratio of p99s measured in the same process, under a bounded load.
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { client, createTenantWithKey, sleep, startTestApp } from '../helpers.ts';

// A DNS server that takes every query and answers none: lookups run into their timeout.
const silentDns = createSocket('udp4');
silentDns.on('message', () => undefined);
await new Promise<void>((resolve) => silentDns.bind(0, '127.0.0.1', resolve));
after(() => silentDns.close());
const dnsPort = (silentDns.address() as AddressInfo).port;

const server = await startTestApp({ dnsServers: [`127.0.0.1:${dnsPort}`] });
const quiet = await createTenantWithKey(server.db);
const noisy = await createTenantWithKey(server.db);
const quietApi = client(server.url, quiet.secret);
const noisyApi = client(server.url, noisy.secret);

const customer = (await quietApi.post('/v1/customers', { name: 'Quiet' })).body;
const noisyCustomer = (await noisyApi.post('/v1/customers', { name: 'Noisy' })).body;
const longDraft = (
  await noisyApi.post('/v1/invoices', {
    customerId: noisyCustomer.id,
    currency: 'eur',
    lines: Array.from({ length: 250 }, (_, i) => ({ description: `Item ${i}`, unitAmount: 100 })),
  })
).body;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The quiet tenant's reads, one every `intervalMs` (a bounded load): their latencies. */
async function quietReads(count: number, intervalMs: number): Promise<number[]> {
  const latencies: number[] = [];
  const reads: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    reads.push(
      (async () => {
        const started = performance.now();
        const res = await quietApi.get(`/v1/customers/${customer.id}`);
        assert.equal(res.status, 200);
        latencies.push(performance.now() - started);
      })(),
    );
    // Real time: a bounded load is a rate of requests, and latency is real elapsed time.
    await sleep(intervalMs);
  }
  await Promise.all(reads);
  return latencies;
}

/** The noisy tenant's load, until stop(): long PDFs, endpoints on hosts that never resolve. */
function noisyLoad() {
  let running = true;
  const stats = { rendered: 0, creations: [] as number[] };
  // Bounded: one render at a time, one started every 200 ms at most (a faster renderer must
  // not become a heavier load), ten endpoint creations at a time.
  const renders = (async () => {
    while (running) {
      const started = performance.now();
      const res = await fetch(`${server.url}/v1/invoices/${longDraft.id}/pdf`, {
        headers: { authorization: `Bearer ${noisy.secret}` },
      });
      assert.equal(res.status, 200);
      await res.arrayBuffer();
      stats.rendered++;
      // Real time: the load's pace (see above).
      await sleep(Math.max(0, 200 - (performance.now() - started)));
    }
  })();
  const creations = Array.from({ length: 10 }, async (_, i) => {
    while (running) {
      const started = performance.now();
      const res = await noisyApi.post('/v1/webhook-endpoints', {
        url: `https://hooks-${i}.unresolvable.example/x`,
        enabledEvents: ['*'],
      });
      assert.equal(res.status, 400, res.text);
      assert.match(res.body.error.message, /could not be resolved/);
      stats.creations.push(performance.now() - started);
    }
  });
  return {
    stats,
    async stop() {
      running = false;
      await Promise.all([renders, ...creations]);
    },
  };
}

/** Idle/loaded round pairs; odd, so that one round is the median. */
const ROUNDS = 5;

describe('tenant isolation under load', () => {
  it("keeps another tenant's p99 within 2× while one renders PDFs and creates endpoints on unresolvable hosts", async () => {
    await quietReads(50, 5); // warm-up
    // Rounds alternate between idle and loaded, so the machine's own drift falls on both alike,
    // and each round is judged on its own: a stall of the machine (a checkpoint, another
    // process) spoils one round, where a defect spoils every round. The median round decides.
    const rounds: { idleP99: number; loadedP99: number; ratio: number }[] = [];
    let stats = { rendered: 0, creations: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      const idleP99 = percentile(await quietReads(100, 10), 99);
      const noise = noisyLoad();
      // Real time: the load gets going (lookups waiting on DNS, a render running) before the
      // loaded round is measured.
      await sleep(300);
      const loadedP99 = percentile(await quietReads(100, 10), 99);
      await noise.stop();
      stats = {
        rendered: stats.rendered + noise.stats.rendered,
        creations: [...stats.creations, ...noise.stats.creations],
      };
      // A few milliseconds are no signal on a 2-core machine where the test client, the API,
      // its render thread, PostgreSQL (and in one CI pass PgBouncer) share the cores: one time
      // slice of another process ahead of a read is 5-10 ms, and under load two or three can
      // be. An idle p99 under 15 ms counts as 15 ms. The defects this guards against cost far
      // more: rendering on the event loop put the p99 at 106 ms, a DNS wait or a held
      // connection costs seconds.
      rounds.push({ idleP99, loadedP99, ratio: loadedP99 / Math.max(idleP99, 15) });
    }
    // The load was real: lookups ran into their timeout, and long PDFs were rendered.
    const slow = stats.creations.filter((ms) => ms > 2000).length;
    assert.ok(slow >= 20, `only ${slow} endpoint creations waited for DNS`);
    assert.ok(stats.rendered >= ROUNDS, `only ${stats.rendered} PDFs rendered`);
    const summary = rounds
      .map((r) => `${r.idleP99.toFixed(1)} → ${r.loadedP99.toFixed(1)}`)
      .join(', ');
    console.error(
      `isolation: p99 idle → under load per round, ms: ${summary} ` +
        `(${stats.rendered} PDFs of 250 lines, ${stats.creations.length} endpoint creations)`,
    );
    const median = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(ROUNDS / 2)]!;
    assert.ok(
      median.ratio <= 2,
      `median round: p99 ${median.loadedP99.toFixed(1)} ms under load against ` +
        `${median.idleP99.toFixed(1)} ms idle (rounds: ${summary})`,
    );
  });
});
