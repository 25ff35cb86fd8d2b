// Starts a complete server process (database, migrations, HTTP, background jobs) and returns
// a handle that shuts it down gracefully. Used by main.ts, the CLI's `serve` and the tests.
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { openDatabase, type OpenDatabase } from './db/database.ts';
import { migrate } from './db/migrate.ts';
import { createRenderPool } from './documents/render-pool.ts';
import { startJobs, type Jobs } from './jobs/index.ts';
import { checkSecretsKey } from './secrets/check.ts';
import { SecretsKeyring } from './secrets/keyring.ts';
import { useDnsServers } from './webhooks/destination.ts';
import { resealEndpointSecrets } from './webhooks/endpoints.ts';
import type { HostedLinks } from './hosted/links.ts';
import { listeningUrl } from './hosted/public-url.ts';
import { systemClock, type Clock } from './clock.ts';
import { composeHttp, createHostedLinks } from './composition.ts';
import { bootstrapFirstTenant } from './keys/bootstrap.ts';
import type { IssuedApiKey } from './keys/service.ts';
import type { KeyVerifier } from './keys/verifier.ts';
import { listenForMetrics, type MetricsListener } from './http/metrics.ts';

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  database: OpenDatabase;
  verifier: KeyVerifier;
  secrets: SecretsKeyring;
  /** Hosted invoice links, with this server's public URL. */
  links: HostedLinks;
  /** The background jobs of this process, when it runs them (RUN_WORKER). */
  jobs: Jobs | undefined;
  /** The key made on the first start of an embedded database, if this start made it. */
  firstKey: IssuedApiKey | null;
  /** Where /metrics is served when METRICS_LISTEN is set (`http://host:port`). */
  metricsUrl: string | undefined;
  close(): Promise<void>;
}

export async function startServer(
  config: Config,
  log: (message: string) => void,
  logStream?: { write(line: string): void },
  clock: Clock = systemClock,
): Promise<RunningServer> {
  useDnsServers(config.dnsServers);
  const database = await openDatabase(config, log);
  // What has started so far, stopped again in reverse if a later step fails (a port in use,
  // say): the verifier's LISTEN connection would otherwise hold the pool, and the process, open.
  const undo: (() => Promise<unknown>)[] = [() => database.close()];
  try {
    const applied = await migrate(database.direct);
    if (applied.length > 0) log(`applied migrations: ${applied.join(', ')}`);
    const firstKey = database.embedded ? await bootstrapFirstTenant(database.db) : null;
    const secrets = await SecretsKeyring.load(config);
    await checkSecretsKey(database.db, secrets);
    await resealEndpointSecrets(database.db, secrets);
    // Without PUBLIC_URL, links use the address the server listens on, known once it does.
    let listening: string | undefined = undefined;
    const links = createHostedLinks(config, secrets, clock, () => listening);
    // Only while a key rotation is under way: links are as many as issued invoices.
    if (secrets.rotating) await links.reseal(database.db);
    const renderer = createRenderPool();
    undo.push(() => renderer.close());
    const foundation = { config, clock, db: database.db, secrets, renderer, links };
    const services = await composeHttp(foundation, { listenDb: database.direct, logStream });
    const { verifier } = services;
    undo.push(() => services.limits.close());
    undo.push(() => verifier.close());
    await verifier.start();
    const app = await buildApp(services);
    undo.push(() => app.close());
    await app.listen({ port: config.port, host: config.host });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    listening = listeningUrl(config, port);
    let metrics: MetricsListener | undefined = undefined;
    if (config.metricsListen) {
      metrics = await listenForMetrics(config, app.metricsRegistry);
      undo.push(() => metrics!.close());
    } else if (config.trustProxy && !config.metricsToken) {
      app.log.warn(
        'GET /metrics answers no one: behind a proxy (TRUST_PROXY) a loopback address proves nothing; set METRICS_TOKEN or METRICS_LISTEN',
      );
    }
    const scheme = config.tlsCertFile ? 'https' : 'http';
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;

    const jobs = config.runWorker
      ? startJobs(services, {
          info: (message) => app.log.info(message),
          error: (error, context) => app.log.error({ err: error }, context),
        })
      : undefined;

    return {
      app,
      url: `${scheme}://${host}:${port}`,
      database,
      verifier,
      secrets,
      links,
      jobs,
      firstKey,
      metricsUrl: metrics?.url,
      async close() {
        // Every step runs even if one before it fails (the database, last, must be released,
        // and an embedded one stopped); the first failure is thrown at the end.
        let failure: unknown;
        const step = async (work: () => Promise<unknown> | undefined) => {
          try {
            await work();
          } catch (error) {
            failure ??= error;
          }
        };
        // Stop accepting, let requests in flight finish, then release the database.
        await step(() => app.close());
        await step(() => metrics?.close());
        // Attempts in flight finish and are recorded before the database goes.
        await step(() => jobs?.stop());
        await step(() => renderer.close());
        await step(() => verifier.close());
        await step(() => database.close());
        if (failure !== undefined) throw failure;
      },
    };
  } catch (error) {
    for (const step of undo.reverse()) await step().catch(() => undefined);
    throw error;
  }
}
