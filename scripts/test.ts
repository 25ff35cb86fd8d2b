// `npm test`: runs every test file under test/ with node's test runner against a real
// PostgreSQL: the server at DATABASE_URL when set (CI), otherwise an embedded PostgreSQL
// started here for the run (data under ./data/test-pg). Each test file makes its own
// database on that server, most as a copy of one the run migrates first.
// DATABASE_DIRECT_URL: DATABASE_URL is a transaction pooler and this the server behind it
// (npm run test:pgbouncer). BILLING_PARTITIONS=N: the tenant tables of every test database are
// hash-partitioned into N partitions (src/db/partitioning.ts).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDatabase, dropDatabase } from '../src/db/admin.ts';
import { startEmbeddedDatabase } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool } from '../src/db/pool.ts';

async function testFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await testFiles(full)));
    else if (entry.name.endsWith('.test.ts')) files.push(full);
  }
  return files.sort();
}

const only = process.argv.slice(2);
const files = only.length > 0 ? only : await testFiles('test');
let baseUrl = process.env.DATABASE_URL;
let stop = async () => undefined as void;
if (!baseUrl) {
  // Several runs side by side (developers' helpers) each set their own TEST_PG_PORT.
  const port = Number(process.env.TEST_PG_PORT ?? 54339);
  const embedded = await startEmbeddedDatabase(`./data/test-pg-${port}`, port, (m) =>
    console.error(m),
  );
  baseUrl = embedded.url;
  stop = embedded.stop;
  console.error(`tests use the embedded PostgreSQL on port ${port}`);
} else {
  console.error(`tests use the PostgreSQL server at DATABASE_URL`);
}

// One migrated database, laid out as the run asks, that test files copy rather than migrate
// their own (test/helpers.ts): a copy takes ~0.1 s, migrating 0.7 s (2–4 s partitioned), and
// a run makes some fifty.
const serverUrl = process.env.DATABASE_DIRECT_URL || baseUrl;
const template = `billing_template_${randomBytes(6).toString('hex')}`;
const partitions = Number(process.env.BILLING_PARTITIONS || 0);
const templateUrl = await createDatabase(
  serverUrl,
  template,
  partitions ? { tenantPartitions: partitions } : {},
);
const dropTemplate = () => dropDatabase(serverUrl, template).catch(() => undefined);
const templateDb = createPool(templateUrl, 2);
try {
  await migrate(templateDb);
} catch (error) {
  await templateDb.end();
  await dropTemplate();
  await stop();
  throw error;
}
await templateDb.end();

// Each test process adds how many responses it held to the OpenAPI document
// (test/openapi/conformance.ts); the total is reported at the end.
const validationDir = await mkdtemp(path.join(tmpdir(), 'billing-validated-'));
const validationLog = path.join(validationDir, 'counts');

// One secrets key for the whole run: every server a test starts on a database, in this process
// or as a child, must hold the key its secrets were sealed with.
const env = {
  // Node's compile cache keeps the type-stripped, compiled modules of every process the run
  // starts (test files, their servers, CLIs): importing the server drops from ~1.1 s of CPU to
  // ~0.5 s, and a run starts a few hundred processes. Node checks each entry against its source.
  NODE_COMPILE_CACHE: path.resolve('data/compile-cache'),
  ...process.env,
  TEST_DATABASE_URL: baseUrl,
  TEST_DATABASE_DIRECT_URL: process.env.DATABASE_DIRECT_URL ?? '',
  DATABASE_URL: '',
  DATABASE_DIRECT_URL: '',
  SECRETS_KEY: randomBytes(32).toString('base64'),
  RESPONSE_VALIDATION_LOG: validationLog,
  TEST_TEMPLATE_DATABASE: template,
};
function run(group: string[], concurrency: number): Promise<number> {
  if (group.length === 0) return Promise.resolve(0);
  const child = spawn(
    process.execPath,
    ['--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...group],
    { stdio: 'inherit', env },
  );
  return new Promise((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
}
// Files named *.alone.test.ts compare latencies (one tenant's under another's load): they run
// after the others, one at a time, so that other test files do not load the machine meanwhile.
// TEST_ALONE=0 leaves them out, and says so: .ci/run runs them in the README's pass and through
// PgBouncer only (.ci/run says why).
const aloneFiles = files.filter((f) => f.endsWith('.alone.test.ts'));
const alone = process.env.TEST_ALONE === '0' ? [] : aloneFiles;
if (alone.length < aloneFiles.length) {
  console.error(`TEST_ALONE=0: not run in this pass: ${aloneFiles.join(', ')}`);
}
const together = files.filter((f) => !f.endsWith('.alone.test.ts'));
const code = Math.max(await run(together, 3), await run(alone, 1));
await dropTemplate();
await stop();
const counts = await readFile(validationLog, 'utf8').catch(() => '');
const validated = counts.split('\n').reduce((sum, line) => sum + Number(line || 0), 0);
console.error(`responses held to the OpenAPI document: ${validated}`);
await rm(validationDir, { recursive: true, force: true });
process.exit(code);
