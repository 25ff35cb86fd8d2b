// Process entry: configuration, database, server, background jobs, graceful shutdown.
import { ConfigError, loadConfig } from './config.ts';
import { startServer } from './server.ts';

function log(message: string): void {
  console.error(JSON.stringify({ level: 30, time: Date.now(), msg: message }));
}

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
  const server = await startServer(config, log);
  log(`billing API listening on ${server.url}`);
  if (server.firstKey) {
    const key = server.firstKey.secret;
    console.log(
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
    console.log(
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
