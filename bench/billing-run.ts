// The billing run at scale (`BENCH_ONLY=billing-run`): N subscriptions on one test clock per
// tenant cross one monthly boundary when their clocks are advanced; measured are the time until
// every one of them is invoiced and issued (numbers, taxes, events, e-mails queued), until their
// documents are stored, the CPU the API process and PostgreSQL spent per invoice, and what the
// run does to the other tenants' mixed load (its p99 during the run against idle). See
// bench/README.md ("Billing run").
import type { ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { postgresCpu, processCpu, peakRssMb } from './cpu.ts';
import { queryOnce } from './database.ts';
import type { Round } from './figures.ts';
import { summarise } from './figures.ts';
import { makeTenants } from './project.ts';
import { cloneTemplates, makeTemplates, sendUsage, type BillingTenant } from './billing-setup.ts';

const env = process.env;
const SUBSCRIPTIONS = Number(env.BENCH_SUBSCRIPTIONS ?? 100_000);
const RUN_TENANTS = Number(env.BENCH_RUN_TENANTS ?? 1);
const ROUND_SECONDS = Number(env.BENCH_RUN_ROUND_SECONDS ?? 5);
const IDLE_ROUNDS = Number(env.BENCH_RUN_IDLE_ROUNDS ?? 4);
/** 0: no mixed load during the run (its CPU per invoice is then the run's alone). */
const WITH_MIX = env.BENCH_RUN_MIX !== '0';
/** How long to wait for the documents after the invoices (seconds). */
const DOCUMENTS_WAIT = Number(env.BENCH_RUN_DOCUMENTS_SECONDS ?? 1500);

export const BOUNDARY = '2027-02-01T00:00:00.000Z';
const ADVANCE_TO = '2027-02-01T01:00:00.000Z';

export interface BillingRunContext {
  url: string;
  origin: string;
  /** The API process (its warnings and errors go to data/billing-run-api.log). */
  api: ChildProcess;
  postmaster: number | null;
  wholeServer: boolean;
  database: string;
  /** A round of the other tenants' mixed load. */
  mixRound: (seconds: number) => Promise<Round>;
  log: (message: string) => void;
}

export interface BillingRunResults {
  subscriptions: number;
  tenants: number;
  setupSeconds: { templates: number; clones: number; usage: number };
  invoicedSeconds: number | null;
  issuedSeconds: number | null;
  documentsSeconds: number | null;
  invoicesPerSecond: number | null;
  apiCpuMsPerInvoice: number;
  postgresCpuMsPerInvoice: number | null;
  idleP99: number;
  runP99: number | null;
  runP99Rounds: number[];
  p99Ratio: number | null;
  mixErrors: number;
  peakRssMb: number;
  check: { invoices: number; duplicates: number; gaps: number; mailQueued: number };
  load: string;
}

const loadAverage = async () =>
  (await import('node:fs/promises')).readFile('/proc/loadavg', 'utf8').then((t) => t.trim());

export async function billingRun(ctx: BillingRunContext): Promise<BillingRunResults> {
  const { url, log } = ctx;
  const apiPid = ctx.api.pid!;
  const apiLog = createWriteStream('data/billing-run-api.log');
  for (const stream of [ctx.api.stdout, ctx.api.stderr]) {
    stream?.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) {
        if (!/"level":[1-3]\d[,}]/.test(line) && line.trim() !== '') apiLog.write(`${line}\n`);
      }
    });
  }
  log(`billing run: ${RUN_TENANTS} tenant(s), ${SUBSCRIPTIONS} subscriptions`);
  const keys = await makeTenants(process.cwd(), url, RUN_TENANTS);
  let started = performance.now();
  const tenants: BillingTenant[] = [];
  for (const key of keys) tenants.push(await makeTemplates(ctx.origin, key, BOUNDARY));
  const templates = (performance.now() - started) / 1000;
  started = performance.now();
  const perTenant = Math.ceil(SUBSCRIPTIONS / RUN_TENANTS);
  for (const tenant of tenants) await cloneTemplates(url, tenant, perTenant);
  await queryOnce(url, 'ANALYZE');
  const clones = (performance.now() - started) / 1000;
  started = performance.now();
  for (const tenant of tenants) await sendUsage(ctx.origin, tenant, perTenant);
  const usage = (performance.now() - started) / 1000;
  await queryOnce(url, 'VACUUM (ANALYZE)');
  await queryOnce(url, 'CHECKPOINT');
  const expected = (
    await queryOnce<{ n: number }>(
      url,
      `SELECT count(*)::int AS n FROM subscriptions WHERE tenant_id = ANY($1)`,
      [tenants.map((t) => t.key.tenantId)],
    )
  )[0]!.n;
  log(
    `set-up: templates ${templates.toFixed(1)} s (API), clones ${clones.toFixed(1)} s (SQL), ` +
      `usage ${usage.toFixed(1)} s (API); ${expected} subscriptions`,
  );

  const idle: Round[] = [];
  for (let i = 0; i < IDLE_ROUNDS; i++) idle.push(await ctx.mixRound(ROUND_SECONDS));
  const idleP99 = summarise(idle).p99;
  log(`idle mix p99 ${idleP99.toFixed(1)} ms`);

  const ids = tenants.map((t) => t.key.tenantId);
  // The progress is read in statements that cost the server little at any N, since their
  // CPU is counted in the run's: the subscriptions still due (an index range that shrinks as
  // the run goes; each one stepped has made its invoice), the numbers taken from the tenants'
  // counters since the advance (each issue takes one), and the renders still queued, counted
  // only once every invoice is issued. A count over the run's invoices was a parallel
  // sequential scan: about 0.6 s of a backend (and its workers) every 2 s at 100,000.
  const counts = async (withRenders: boolean) =>
    (
      await queryOnce<{ due: number; numbered: number; renders: number | null }>(
        url,
        `SELECT (SELECT count(*)::int FROM subscriptions
                  WHERE tenant_id = ANY($1) AND environment = 'test' AND next_action_at <= $2) AS due,
                (SELECT coalesce(sum(last_number), 0)::int FROM invoice_number_counters
                  WHERE tenant_id = ANY($1)) AS numbered,
                CASE WHEN $3 THEN (SELECT count(*)::int FROM document_renders
                                    WHERE tenant_id = ANY($1)) END AS renders`,
        [ids, ADVANCE_TO, withRenders],
      )
    )[0]!;
  // The run also issues the drafts there are at the advance (the templates' first invoices,
  // made at set-up): their numbers are not the boundary's.
  const drafts = (
    await queryOnce<{ n: number }>(
      url,
      `SELECT count(*)::int AS n FROM invoices WHERE tenant_id = ANY($1) AND status = 'draft'`,
      [ids],
    )
  )[0]!.n;
  const numbered0 = (await counts(false)).numbered + drafts;
  const progress = async (withRenders: boolean) => {
    const row = await counts(withRenders);
    return {
      made: expected - row.due,
      issued: Math.max(0, row.numbered - numbered0),
      renders: row.renders,
    };
  };
  const cpu = async () => ({
    api: await processCpu(apiPid),
    pg:
      ctx.postmaster === null
        ? null
        : await postgresCpu(ctx.postmaster, new Set([ctx.database]), ctx.wholeServer),
  });
  // Where PostgreSQL has pg_stat_statements loaded, the run's statements are counted alone.
  const statements = await queryOnce(url, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements')
    .then(() => queryOnce(url, 'SELECT pg_stat_statements_reset()'))
    .then(() => true)
    .catch(() => false);
  const cpu0 = await cpu();
  const t0 = performance.now();
  for (const tenant of tenants) {
    const res = await fetch(`${ctx.origin}/v1/test-clocks/${tenant.clockId}/advance`, {
      method: 'POST',
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ frozenTime: ADVANCE_TO }),
    });
    if (res.status !== 202) throw new Error(`advance: ${res.status} ${await res.text()}`);
  }
  const seconds = () => (performance.now() - t0) / 1000;
  let invoicedSeconds: number | null = null;
  let issuedSeconds: number | null = null;
  let documentsSeconds: number | null = null;
  let cpu1 = cpu0;
  const watching = (async () => {
    for (;;) {
      const p = await progress(issuedSeconds !== null);
      if (invoicedSeconds === null && p.made >= expected) invoicedSeconds = seconds();
      if (issuedSeconds === null && p.issued >= expected) {
        issuedSeconds = seconds();
        cpu1 = await cpu();
        log(`all ${expected} invoices issued after ${issuedSeconds.toFixed(1)} s`);
      }
      if (issuedSeconds !== null && p.renders === 0) {
        documentsSeconds = seconds();
        return;
      }
      if (seconds() > DOCUMENTS_WAIT) return;
      const renders = p.renders === null ? '' : `, ${p.renders} to render`;
      log(`${seconds().toFixed(0)} s: ${p.made} made, ${p.issued} issued${renders}`);
      // Many renders still to come: looked at less often (their count reads the whole queue).
      const pause = (p.renders ?? 0) > 20_000 ? 10_000 : 2000;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  })();
  const during: Round[] = [];
  while (issuedSeconds === null && seconds() < DOCUMENTS_WAIT) {
    if (WITH_MIX) during.push(await ctx.mixRound(ROUND_SECONDS));
    else await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  await watching;
  if (issuedSeconds === null) cpu1 = await cpu();
  if (statements) await writeStatements(url, expected);
  const runRounds = during.map((r) => summarise([r]).p99);
  const runP99 = during.length > 0 ? summarise(during).p99 : null;
  const invoices = expected;
  const results: BillingRunResults = {
    subscriptions: expected,
    tenants: RUN_TENANTS,
    setupSeconds: { templates, clones, usage },
    invoicedSeconds,
    issuedSeconds,
    documentsSeconds,
    invoicesPerSecond: issuedSeconds === null ? null : expected / issuedSeconds,
    apiCpuMsPerInvoice: ((cpu1.api - cpu0.api) * 1000) / invoices,
    postgresCpuMsPerInvoice:
      cpu1.pg === null || cpu0.pg === null ? null : ((cpu1.pg - cpu0.pg) * 1000) / invoices,
    idleP99,
    runP99,
    runP99Rounds: runRounds,
    p99Ratio: runP99 === null ? null : runP99 / idleP99,
    mixErrors: during.reduce((a, r) => a + summarise([r]).errors, 0),
    peakRssMb: await peakRssMb(apiPid),
    check: await check(url, ids),
    load: await loadAverage(),
  };
  log(`billing run: ${JSON.stringify(results)}`);
  return results;
}

/** One invoice per subscription for the boundary, numbers gapless per tenant, mail queued. */
async function check(url: string, tenants: string[]) {
  const [row] = await queryOnce<{
    invoices: number;
    duplicates: number;
    gaps: number;
    mail: number;
  }>(
    url,
    `WITH cycle AS (
       SELECT i.tenant_id, i.subscription_id, i.number FROM invoices i
        WHERE i.tenant_id = ANY($1) AND i.billing_reason = 'subscription_cycle'),
     numbered AS (
       SELECT tenant_id, substring(number FROM '[0-9]+$')::int AS n FROM invoices
        WHERE tenant_id = ANY($1) AND number IS NOT NULL)
     SELECT (SELECT count(*)::int FROM cycle) AS invoices,
            (SELECT count(*)::int - count(DISTINCT (tenant_id, subscription_id))::int
               FROM cycle) AS duplicates,
            (SELECT coalesce(sum(max - min + 1 - n), 0)::int FROM
               (SELECT tenant_id, min(n), max(n), count(*) AS n FROM numbered
                 GROUP BY tenant_id) g) AS gaps,
            (SELECT count(*)::int FROM mail_outbox WHERE tenant_id = ANY($1)) AS mail`,
    [tenants],
  );
  return {
    invoices: row!.invoices,
    duplicates: row!.duplicates,
    gaps: row!.gaps,
    mailQueued: row!.mail,
  };
}

/** The run's statements by total time, per invoice, to data/billing-run-statements.txt. */
async function writeStatements(url: string, invoices: number) {
  const rows = await queryOnce<{ calls: number; ms: number; query: string }>(
    url,
    `SELECT calls::int, total_exec_time::float8 AS ms, left(regexp_replace(query, '\\s+', ' ', 'g'), 160) AS query
       FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
      ORDER BY total_exec_time DESC LIMIT 40`,
  );
  const total = await queryOnce<{ calls: number; ms: number }>(
    url,
    `SELECT sum(calls)::int AS calls, sum(total_exec_time)::float8 AS ms FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`,
  );
  const lines = [
    `statements per invoice ${(total[0]!.calls / invoices).toFixed(1)}, ` +
      `execution ms per invoice ${(total[0]!.ms / invoices).toFixed(2)}`,
    ...rows.map(
      (r) =>
        `${(r.calls / invoices).toFixed(2).padStart(6)} calls ${(r.ms / invoices).toFixed(3).padStart(7)} ms  ${r.query}`,
    ),
  ];
  await writeFile('data/billing-run-statements.txt', `${lines.join('\n')}\n`);
}
