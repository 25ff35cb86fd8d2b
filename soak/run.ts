// `npm run soak`: the long versions of the reliability scenarios whose short versions run in
// `npm test` (test/reliability/), one after the other on an embedded PostgreSQL of its own,
// printing for each its cases, failures and duration. `npm run soak -- fuzz crash` runs some.
// Exits 1 when anything failed. About 3–4 minutes on two cores.
import { startOwnedPostgres } from '../test/reliability/databases.ts';
import { describeFigures, explainFailures, type Figures } from '../test/reliability/figures.ts';
import { runCrashScenario } from '../test/reliability/crash.ts';
import { runFuzzScenario } from '../test/reliability/fuzz.ts';
import { runOutageScenario } from '../test/reliability/outage.ts';
import { runPropertyScenario } from '../test/reliability/properties.ts';
import { runShutdownScenario } from '../test/reliability/shutdown.ts';

const SCENARIOS: Record<string, (adminUrl: string) => Promise<Figures>> = {
  crash: (url) => runCrashScenario(url, { clients: 10, payers: 4, kills: 12, runMs: [500, 1500] }),
  outage: () => runOutageScenario({ outages: 4, downMs: 4000, clients: 4 }),
  shutdown: (url) => runShutdownScenario(url, { rounds: 8, blocked: 14, pdfs: 4, holdMs: 1500 }),
  fuzz: (url) =>
    runFuzzScenario(url, { valuesPerSlot: Infinity, randomPerSlot: 10, seed: Date.now() }),
  properties: (url) => runPropertyScenario(url, { runs: 200, maxCommands: 50 }),
};

const chosen = process.argv.slice(2);
const unknown = chosen.filter((name) => !(name in SCENARIOS));
if (unknown.length > 0) {
  console.error(
    `unknown scenario ${unknown.join(', ')}; choose from ${Object.keys(SCENARIOS).join(', ')}`,
  );
  process.exit(2);
}
const names = chosen.length > 0 ? chosen : Object.keys(SCENARIOS);

const postgres = await startOwnedPostgres();
console.log(`soak: embedded PostgreSQL on port ${postgres.port}; scenarios ${names.join(', ')}\n`);
const results: Figures[] = [];
try {
  for (const name of names) {
    const started = Date.now();
    let figures: Figures;
    try {
      figures = await SCENARIOS[name]!(postgres.url);
    } catch (error) {
      figures = {
        category: name,
        cases: 0,
        failures: 1,
        durationMs: Date.now() - started,
        failureMessages: [`the scenario could not run: ${(error as Error).stack ?? String(error)}`],
        notes: {},
      };
    }
    results.push(figures);
    console.log(figures.failures === 0 ? describeFigures(figures) : explainFailures(figures));
  }
} finally {
  await postgres.destroy();
}

const pad = (text: string, width: number) => text.padEnd(width);
const rows = results.map((f) => [
  f.category,
  String(f.cases),
  String(f.failures),
  `${(f.durationMs / 1000).toFixed(1)} s`,
]);
const total = results.reduce(
  (t, f) => ({
    cases: t.cases + f.cases,
    failures: t.failures + f.failures,
    ms: t.ms + f.durationMs,
  }),
  { cases: 0, failures: 0, ms: 0 },
);
rows.push([
  'total',
  String(total.cases),
  String(total.failures),
  `${(total.ms / 1000).toFixed(1)} s`,
]);
const widths = [12, 8, 9, 9];
console.log(
  `\n| ${['category', 'cases', 'failures', 'duration'].map((h, i) => pad(h, widths[i]!)).join(' | ')} |`,
);
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const row of rows) console.log(`| ${row.map((c, i) => pad(c, widths[i]!)).join(' | ')} |`);
process.exit(total.failures === 0 ? 0 : 1);
