// The server's background work, in every server process (RUN_WORKER) or alone (`billing
// worker`): webhook deliveries, the mail outbox, the documents of what was issued, dunning
// (overdue invoices and reminders), and the purge of expired idempotency records. Every job is safe with any number of processes
// running it on one database. Its schedule (polls, dunning runs, purges) runs on the clock it
// is given (src/clock.ts), so a test clock moved forward makes it act without real waiting.
import type { Config } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { systemClock, todayUtcOf, type Clock } from '../clock.ts';
import { createHostedLinks, createServices, type Services } from '../composition.ts';
import { purgeExpiredIdempotencyKeys } from '../db/unit-of-work.ts';
import { createRenderPool } from '../documents/render-pool.ts';
import { RenderQueue } from '../documents/render-queue.ts';
import { useDnsServers } from '../webhooks/destination.ts';
import { WebhookWorker } from '../webhooks/worker.ts';
import { createMailTransport } from '../mail/transport.ts';
import { MailWorker } from '../mail/worker.ts';
import { runDunning } from '../dunning/service.ts';
import { checkSecretsKey } from '../secrets/check.ts';
import { SecretsKeyring } from '../secrets/keyring.ts';

const DUNNING_DELAY_MS = 60_000;
const DUNNING_INTERVAL_MS = 5 * 60_000;
const PURGE_DELAY_MS = 60_000;
const PURGE_INTERVAL_MS = 60_000;
// Subscriptions: a boundary is billed within seconds of its instant; a test clock's advance
// that no process has moved for half a minute (its server died) is taken up again.
const SUBSCRIPTIONS_DELAY_MS = 1_000;
const SUBSCRIPTIONS_INTERVAL_MS = 5_000;
const STALLED_ADVANCE_SECONDS = 30;

export interface Jobs {
  webhooks: WebhookWorker;
  mail: MailWorker;
  renders: RenderQueue;
  stop(): Promise<void>;
}

export function startJobs(
  services: Pick<
    Services,
    | 'config'
    | 'clock'
    | 'db'
    | 'secrets'
    | 'mailKinds'
    | 'renderer'
    | 'documents'
    | 'issuedModel'
    | 'subscriptions'
    | 'testClocks'
  >,
  log: { info(message: string): void; error(error: unknown, context: string): void },
): Jobs {
  const { config, clock, db, secrets } = services;
  const onError = (error: unknown, context: string) => log.error(error, context);
  // E-mails and documents wait while the billing run has batches to do: on a small machine the
  // CPU they take is the run's (docs/billing-run.md); a reader still gets a document at once.
  const yieldTo = () => services.subscriptions.runBusy();
  const webhooks = new WebhookWorker(db, {
    allowLoopback: config.webhooksAllowLoopback,
    secrets,
    onError,
    clock,
  });
  const mail = new MailWorker(db, {
    transport: createMailTransport(config, (message) => log.info(message), clock),
    kinds: services.mailKinds,
    onError,
    clock,
    yieldTo,
  });
  const renders = new RenderQueue(db, {
    renderer: services.renderer,
    modelOf: services.issuedModel,
    clock,
    onError,
    yieldTo,
  });
  services.documents.onIssued(() => renders.poke());
  webhooks.start();
  mail.start();
  renders.start();
  const stopping = new AbortController();
  const purging = every(clock, stopping.signal, PURGE_DELAY_MS, PURGE_INTERVAL_MS, async () => {
    await purgeExpiredIdempotencyKeys(db).catch((error: unknown) => onError(error, 'purging'));
  });
  // Due dates are days: a run every few minutes finds what the day brought soon enough. The
  // first comes a minute after start, not at once, so short-lived processes stay quiet.
  const dunning = every(clock, stopping.signal, DUNNING_DELAY_MS, DUNNING_INTERVAL_MS, () =>
    runDunning(db, todayUtcOf(clock))
      .then(({ reminders }) => {
        if (reminders > 0) mail.poke();
      })
      .catch((error: unknown) => onError(error, 'dunning')),
  );
  // Advances that a crash cut short go on at once: no advance of this process is under way yet.
  const { advances } = services.testClocks;
  void advances.resumeStalled(0).catch((error: unknown) => onError(error, 'test clocks'));
  const billing = every(
    clock,
    stopping.signal,
    SUBSCRIPTIONS_DELAY_MS,
    SUBSCRIPTIONS_INTERVAL_MS,
    () =>
      services.subscriptions
        .runDue(null)
        .then(() => advances.resumeStalled(STALLED_ADVANCE_SECONDS))
        .catch((error: unknown) => onError(error, 'subscriptions')),
  );
  return {
    webhooks,
    mail,
    renders,
    async stop() {
      stopping.abort();
      // A run in progress finishes first.
      await Promise.all([purging, dunning, billing, advances.idle()]);
      // Attempts in flight finish and are recorded before the database goes.
      await Promise.all([webhooks.stop(), mail.stop(), renders.stop()]);
    },
  };
}

/**
 * Runs `job` after `firstMs`, then `intervalMs` after each run ends, on the clock (a test
 * clock moved past a run's time starts it), until `signal` aborts.
 */
async function every(
  clock: Clock,
  signal: AbortSignal,
  firstMs: number,
  intervalMs: number,
  job: () => Promise<void>,
): Promise<void> {
  for (let wait = firstMs; ; wait = intervalMs) {
    await clock.sleep(wait, signal);
    if (signal.aborted) return;
    await job();
  }
}

/**
 * `billing worker`: the jobs alone, on the configured database, until SIGTERM or SIGINT; then
 * the attempts in flight finish before it exits.
 */
export async function runStandaloneWorker(
  config: Config,
  log: (message: string) => void,
): Promise<void> {
  useDnsServers(config.dnsServers);
  const database = await openDatabase(config, log, 5);
  try {
    await migrate(database.direct);
    const secrets = await SecretsKeyring.load(config);
    await checkSecretsKey(database.db, secrets);
    const renderer = createRenderPool();
    // Alone, the worker knows no listening address: without PUBLIC_URL, links in e-mails use
    // HOST and PORT as configured.
    const clock = systemClock;
    const links = createHostedLinks(config, secrets, clock);
    const foundation = { config, clock, db: database.db, secrets, renderer, links };
    const jobs = startJobs(createServices(foundation), {
      info: log,
      error: (error, context) => log(`${context}: ${String(error)}`),
    });
    log('worker running');
    const signal = await new Promise<string>((resolve) => {
      process.once('SIGTERM', () => resolve('SIGTERM'));
      process.once('SIGINT', () => resolve('SIGINT'));
    });
    log(`${signal} received: finishing attempts in flight, then stopping`);
    await jobs.stop();
    await renderer.close();
  } finally {
    await database.close();
  }
}
