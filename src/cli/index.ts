// The operator tool: `billing <command>`; from a checkout, `npm run billing -- <command>`.
import { Command } from 'commander';
import { ApiError } from '../errors.ts';
import { ConfigError } from '../config.ts';
import { withDatabase } from './database.ts';
import { registerDocumentCommands } from './documents.ts';
import { registerKeyCommands } from './keys.ts';
import { registerSecretsCommands } from './secrets.ts';
import { registerSubscriptionCommands } from './subscriptions.ts';
import { registerTenantCommands } from './tenants.ts';
import { registerUserCommands } from './users.ts';

const program = new Command('billing').description('Billing API operator tool');
registerTenantCommands(program);
registerKeyCommands(program);
registerSecretsCommands(program);
registerDocumentCommands(program);
registerSubscriptionCommands(program);
registerUserCommands(program);
program
  .command('migrate')
  .description('apply database migrations')
  .option('--json', 'print JSON')
  .action(async (o: { json?: boolean }) => {
    const { migrate } = await import('../db/migrate.ts');
    const applied = await withDatabase((db) => migrate(db));
    console.log(
      o.json
        ? JSON.stringify({ applied })
        : applied.length
          ? `applied ${applied.join(', ')}`
          : 'up to date',
    );
  });
program
  .command('worker')
  .description('run the background jobs (webhooks, mail) alone, without the HTTP server')
  .action(async () => {
    const [{ loadConfig }, { runStandaloneWorker }] = await Promise.all([
      import('../config.ts'),
      import('../jobs/index.ts'),
    ]);
    await runStandaloneWorker(loadConfig(), (m) => console.error(m));
  });
program
  .command('serve')
  .description('run the API server')
  .action(async () => {
    await import('../main.ts');
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof ApiError) {
    console.error(`error: ${error.code}: ${error.message}`);
  } else if (error instanceof ConfigError) {
    console.error(error.message);
  } else {
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
  }
  process.exitCode = 1;
}
