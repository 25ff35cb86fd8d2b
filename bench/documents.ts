// `npm run bench:documents`: how long one PDF takes to render, for 1, 20 and 250 lines, on the
// main thread and through the render pool (renders of the same kind, one at a time, so the pool's
// figure is the main thread's plus the hand-off to a worker and back). Prints a markdown table.
// The two sides alternate in rounds so that a drift of this shared machine's speed falls on
// both alike. BENCH_DOCUMENT_ROUNDS (default 5) sets the number of rounds.
//
// Every render is another document: another buyer (of 2,000), number, date, and line
// descriptions and amounts drawn at random (fixed seed) from 400 made-up words. The shaped
// words are kept per thread (src/documents/pdf/fonts.ts), so one document rendered again and
// again would measure that cache, not rendering.
import { performance } from 'node:perf_hooks';
import type { DocumentModel } from '../src/documents/model.ts';
import { renderPdf } from '../src/documents/pdf/render.ts';
import { createRenderPool } from '../src/documents/render-pool.ts';
import { invoiceWithLines } from '../test/documents/fixtures.ts';
import { buildModel, type LineInput } from '../test/documents/model-builder.ts';

const ROUNDS = Number(process.env.BENCH_DOCUMENT_ROUNDS ?? 5);
// Renders per round and side: fewer for long documents, so that each size takes similar time.
const SIZES: [lines: number, perRound: number][] = [
  [1, 12],
  [20, 8],
  [250, 2],
];

let seed = 20_261_125;
function random(): number {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
}
function pick<T>(items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}
const LETTERS = [...'abcdefghijklmnopqrstuvwxyzäöüéłś'];
function word(): string {
  return Array.from({ length: 3 + Math.floor(random() * 8) }, () => pick(LETTERS)).join('');
}
const WORDS = Array.from({ length: 400 }, word);
const BUYERS = Array.from(
  { length: 2000 },
  () => `${word()} ${word()} ${pick(['GmbH', 'Ltd', 'SARL', 'S.L.', 'B.V.'])}`,
);
const { lines: _lines, taxBreakdown: _breakdown, totals: _totals, ...BASE } = invoiceWithLines(1);
const RATES = [
  { id: 'txr_19', displayName: 'VAT 19%', percentage: '19', category: 'S' as const },
  { id: 'txr_7', displayName: 'VAT 7%', percentage: '7', category: 'S' as const },
];

/** Another document of `lines` lines. */
function anotherInvoice(lines: number): DocumentModel {
  const month = String(1 + Math.floor(random() * 12)).padStart(2, '0');
  const day = String(1 + Math.floor(random() * 28)).padStart(2, '0');
  return buildModel(
    {
      ...BASE,
      buyer: { ...BASE.buyer, name: pick(BUYERS) },
      number: `INV-${String(Math.floor(random() * 999_999)).padStart(6, '0')}`,
      issueDate: `2026-${month}-${day}`,
    },
    Array.from({ length: lines }, (): LineInput => ({
      description: Array.from({ length: 2 + Math.floor(random() * 6) }, () => pick(WORDS)).join(
        ' ',
      ),
      quantity: 1 + Math.floor(random() * 9),
      unitAmount: 100 + Math.floor(random() * 500_000),
      rate: random() < 0.3 ? 'txr_7' : 'txr_19',
    })),
    RATES,
  );
}

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
    for (let i = 0; i < 3; i++) {
      await renderPdf(anotherInvoice(lines));
      await pool.renderPdf(anotherInvoice(lines));
    }
  }
  for (const [lines, perRound] of SIZES) {
    const main: number[] = [];
    const pooled: number[] = [];
    let bytes = 0;
    let pages = 0;
    for (let round = 0; round < ROUNDS; round++) {
      bytes = await time(() => renderPdf(anotherInvoice(lines)), perRound, main);
      await time(() => pool.renderPdf(anotherInvoice(lines)), perRound, pooled);
    }
    pages = (
      (await renderPdf(anotherInvoice(lines))).toString('latin1').match(/\/Type \/Page\b/g) ?? []
    ).length;
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
