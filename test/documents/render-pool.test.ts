import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { renderPdf } from '../../src/documents/pdf/render.ts';
import { createRenderPool, type RenderPool } from '../../src/documents/render-pool.ts';
import { longInvoice, polishInvoice, sampleCii } from './fixtures.ts';

// Node 23.9+: CPU time of the calling thread alone (process.cpuUsage() counts the workers too).
const threadCpuUsage = (process as unknown as { threadCpuUsage(): NodeJS.CpuUsage }).threadCpuUsage;

interface Measure {
  /** Gaps between the ticks of a 5 ms timer on the main thread while the work ran. */
  gaps: number[];
  durationMs: number;
}

/**
 * A gap is time the event loop could not run the timer: held by work on this thread, or
 * waiting for a core on a busy machine (the machine this runs on is shared).
 */
async function measureWhile(work: () => Promise<unknown>): Promise<Measure> {
  const ticks: number[] = [];
  let ticked: (() => void) | undefined;
  const timer = setInterval(() => {
    ticks.push(performance.now());
    ticked?.();
  }, 5);
  const nextTick = () => new Promise<void>((resolve) => (ticked = resolve));
  await nextTick(); // the timer runs
  const started = performance.now();
  ticks.push(started);
  await work();
  const ended = performance.now();
  await nextTick(); // the tick that ends the last gap
  clearInterval(timer);
  const during = ticks.filter((tick) => tick >= started);
  const gaps = during.slice(1).map((tick, i) => tick - during[i]!);
  return { gaps, durationMs: ended - started };
}

/**
 * CPU time this thread spends on `work`, with no timer running: a ticking timer costs CPU in
 * proportion to the wall time, which a loaded machine stretches (niced workers starved for a
 * minute cost the ticks 286 ms).
 */
async function mainThreadCpuMs(work: () => Promise<unknown>): Promise<number> {
  const before = threadCpuUsage.call(process);
  await work();
  const after = threadCpuUsage.call(process);
  return (after.user - before.user + after.system - before.system) / 1000;
}

/** The share of the time spent in gaps longer than `thresholdMs`. */
function stalledShare({ gaps, durationMs }: Measure, thresholdMs: number) {
  const stalled = gaps.filter((gap) => gap > thresholdMs).reduce((sum, gap) => sum + gap, 0);
  return Math.min(1, stalled / durationMs);
}

describe('render pool', () => {
  let pool: RenderPool;
  before(async () => {
    pool = createRenderPool({ threads: 2 });
    // Start both workers and load their modules and fonts before anything is measured.
    await Promise.all([pool.renderPdf(polishInvoice), pool.renderPdf(polishInvoice)]);
  });
  after(() => pool.close());

  it('renders the same bytes as the main thread', async () => {
    const xml = sampleCii(polishInvoice);
    const [inPool, inThread] = await Promise.all([
      pool.renderPdf(polishInvoice, { facturX: xml }),
      renderPdf(polishInvoice, { facturX: xml }),
    ]);
    assert.ok(inPool.equals(inThread));
  });

  it('keeps the event loop free while 4 renders of 250 lines run', async (t) => {
    // The pool is measured first: the main thread's own renders would leave garbage that the
    // collector, on this thread, could clear during the pool's measure and count to it. One
    // long render through the pool first warms this thread's side of it (sending a large model,
    // taking a large PDF back).
    await pool.renderPdf(longInvoice);
    // Independent of the machine's load: the renders' CPU time is spent in the workers, and
    // this thread only hands them the model and takes the PDF back.
    const workersBefore = pool.cpuSeconds;
    const poolCpuMs = await mainThreadCpuMs(() =>
      Promise.all(Array.from({ length: 4 }, () => pool.renderPdf(longInvoice))),
    );
    const workersCpuMs = (pool.cpuSeconds - workersBefore) * 1000;
    const inPool = await measureWhile(() =>
      Promise.all(Array.from({ length: 4 }, () => pool.renderPdf(longInvoice))),
    );
    await renderPdf(longInvoice); // warm this thread's fonts and code before timing it
    // The yardstick: on the main thread each render of 250 lines holds the loop for its whole
    // duration, so nearly all of the time goes by in gaps longer than half a render. The share
    // of such gaps, not the longest gap, is judged: on a loaded machine a timer is late by
    // tens of milliseconds now and then whatever this process does.
    const mainThread = await measureWhile(async () => {
      for (let i = 0; i < 4; i++) await renderPdf(longInvoice);
    });
    const thresholdMs = mainThread.durationMs / 4 / 2;
    const mainShare = stalledShare(mainThread, thresholdMs);
    const poolShare = stalledShare(inPool, thresholdMs);
    t.diagnostic(
      `gaps > ${thresholdMs.toFixed(0)} ms: main thread ${(mainShare * 100).toFixed(0)} % of the ` +
        `time, pool ${(poolShare * 100).toFixed(0)} % (longest gap ${Math.max(...inPool.gaps).toFixed(0)} ms); ` +
        `CPU of 4 renders through the pool: workers ${workersCpuMs.toFixed(0)} ms, main thread ${poolCpuMs.toFixed(0)} ms`,
    );
    assert.ok(mainShare > 0.75, 'the measure sees a blocked loop');
    assert.ok(
      poolShare < 0.5,
      `pool: the loop stalled ${(poolShare * 100).toFixed(0)} % of the time`,
    );
    assert.ok(workersCpuMs > 0, 'the workers report their CPU time');
    assert.ok(poolCpuMs < workersCpuMs / 4, 'the main thread did the rendering');
  });

  it('loads its worker in a process of its own', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['test/documents/pool-smoke.ts'],
      { env: { ...process.env, NODE_OPTIONS: '' } },
    );
    const result = JSON.parse(stdout) as { bytes: number; header: string };
    assert.equal(result.header, '%PDF-1.7');
    assert.ok(result.bytes > 10_000);
  });
});
