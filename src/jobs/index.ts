// The server's background work, in every server process (RUN_WORKER) or alone (`billing
// worker`): webhook deliveries, the mail outbox, dunning (overdue invoices and reminders), and
// the purge of expired idempotency records. Every job is safe with any number of processes
// running it on one database.
import type { Config } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { systemClock, todayUtcOf } from '../clock.ts';
import { createHostedLinks, createServices, type Services } from '../composition.ts';
import { purgeExpiredIdempotencyKeys } from '../db/unit-of-work.ts';
import { createRenderPool } from '../documents/render-pool.ts';
import { useDnsServers } from '../webhooks/destination.ts';
import { WebhookWorker } from '../webhooks/worker.ts';
import { createMailTransport } from '../mail/transport.ts';
import { MailWorker } from '../mail/worker.ts';
import { runDunning } from '../dunning/service.ts';
import { checkSecretsKey } from '../secrets/check.ts';
import { SecretsKeyring } from '../secrets/keyring.ts';

const DUNNING_INTERVAL_MS = 5 * 60_000;

export interface Jobs {
  webhooks: WebhookWorker;
  mail: MailWorker;
  stop(): Promise<void>;
}

export function startJobs(
  services: Pick<Services, 'config' | 'clock' | 'db' | 'secrets' | 'mailKinds'>,
  log: { info(message: string): void; error(error: unknown, context: string): void },
): Jobs {
  const { config, clock, db, secrets } = services;
  const onError = (error: unknown, context: string) => log.error(error, context);
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
  });
  webhooks.start();
  mail.start();
  const purge = setInterval(() => {
    purgeExpiredIdempotencyKeys(db).catch((error: unknown) => onError(error, 'purging'));
  }, 60_000);
  purge.unref();
  // Due dates are days: a run every few minutes finds what the day brought soon enough. The
  // first comes a minute after start, not at once, so short-lived processes stay quiet.
  let dunningRun: Promise<void> = Promise.resolve();
  let stopped = false;
  const dun = () => {
    dunningRun = runDunning(db, todayUtcOf(clock))
      .then(({ reminders }) => {
        if (reminders > 0) mail.poke();
      })
      .catch((error: unknown) => onError(error, 'dunning'))
      .finally(() => {
        if (!stopped) dunning = setTimeout(dun, DUNNING_INTERVAL_MS).unref();
      });
  };
  let dunning = setTimeout(dun, 60_000).unref();
  return {
    webhooks,
    mail,
    async stop() {
      clearInterval(purge);
      stopped = true;
      clearTimeout(dunning);
      await dunningRun;
      // Attempts in flight finish and are recorded before the database goes.
      await Promise.all([webhooks.stop(), mail.stop()]);
    },
  };
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
