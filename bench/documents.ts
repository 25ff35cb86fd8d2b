// `npm run bench:documents`: how long one PDF takes to render, for 1, 20 and 250 lines, on the
// main thread and through the render pool (the same renders, one at a time, so the pool's
// figure is the main thread's plus the hand-off to a worker and back). Prints a markdown table.
// The two sides alternate in rounds so that a drift of this shared machine's speed falls on
// both alike. BENCH_DOCUMENT_ROUNDS (default 5) sets the number of rounds.
import { performance } from 'node:perf_hooks';
import type { DocumentModel } from '../src/documents/model.ts';
import { renderPdf } from '../src/documents/pdf/render.ts';
import { createRenderPool } from '../src/documents/render-pool.ts';
import { invoiceWithLines } from '../test/documents/fixtures.ts';

const ROUNDS = Number(process.env.BENCH_DOCUMENT_ROUNDS ?? 5);
// Renders per round and side: fewer for long documents, so that each size takes similar time.
const SIZES: [lines: number, perRound: number][] = [
  [1, 12],
  [20, 8],
  [250, 2],
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function time(render: () => Promise<Buffer>, times: number, into: number[]) {
  let bytes = 0;
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    bytes = (await render()).length;
    into.push(performance.now() - started);
  }
  return bytes;
}

const pool = createRenderPool({ threads: 1 });
const rows: string[] = [];
try {
  // Warm both sides: modules, fonts, JIT.
  for (const [lines] of SIZES) {
    const model = invoiceWithLines(lines);
    for (let i = 0; i < 3; i++) {
      await renderPdf(model);
      await pool.renderPdf(model);
    }
  }
  for (const [lines, perRound] of SIZES) {
    const model: DocumentModel = invoiceWithLines(lines);
    const main: number[] = [];
    const pooled: number[] = [];
    let bytes = 0;
    let pages = 0;
    for (let round = 0; round < ROUNDS; round++) {
      bytes = await time(() => renderPdf(model), perRound, main);
      await time(() => pool.renderPdf(model), perRound, pooled);
    }
    pages = ((await renderPdf(model)).toString('latin1').match(/\/Type \/Page\b/g) ?? []).length;
    const stats = (samples: number[]) => {
      const sorted = [...samples].sort((a, b) => a - b);
      return `${percentile(sorted, 50).toFixed(1)} | ${percentile(sorted, 99).toFixed(1)}`;
    };
    rows.push(
      `| ${lines} | ${pages} | ${(bytes / 1024).toFixed(0)} KiB | ${main.length} | ` +
        `${stats(main)} | ${stats(pooled)} |`,
    );
  }
} finally {
  await pool.close();
}

console.log(
  [
    `Node ${process.version}, ${ROUNDS} rounds; times in ms per render, one render at a time.`,
    '',
    '| lines | pages | size | renders per side | main thread median | main thread p99 | pool median | pool p99 |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
  ].join('\n'),
);
