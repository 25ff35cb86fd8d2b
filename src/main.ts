// Process entry: configuration, database, server, background jobs, graceful shutdown.
import { pino } from 'pino';
import { ConfigError, loadConfig } from './config.ts';
import { startServer } from './server.ts';

export async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  // JSON lines on standard output; what is said to the person at the terminal (the first-start
  // key above all) goes to standard error, never into the log stream.
  const logger = pino({ level: config.logLevel === 'silent' ? 'silent' : config.logLevel });
  const log = (message: string) => logger.info(message);
  const server = await startServer(config, log);
  log(`billing API listening on ${server.url}`);
  if (server.firstKey) {
    const key = server.firstKey.secret;
    console.error(
      [
        '',
        `  First start: created tenant ${server.firstKey.tenantId} and a test API key with every scope:`,
        '',
        `    ${key}`,
        '',
        '  It is shown only this once. Try it:',
        '',
        `    curl -H "Authorization: Bearer ${key}" ${server.url}/v1/auth/whoami`,
        '',
        `  API reference: ${server.url}/docs`,
        '',
      ].join('\n'),
    );
  } else if (server.database.embedded) {
    console.error(
      `  Embedded database in ${config.dataDir}. Make a key with: npm run billing -- keys create --tenant TEN --environment test --scope customers:read`,
    );
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal} received: finishing requests in flight, then stopping`);
    const force = setTimeout(() => process.exit(1), 25_000);
    force.unref();
    server.close().then(
      () => {
        log('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        log(`shutdown failed: ${String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

await main();
