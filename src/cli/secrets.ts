// billing secrets reseal: after a new SECRETS_KEY (with the old one in SECRETS_KEY_PREVIOUS),
// seals every stored secret under the new key, so the old one can be dropped.
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { resealEndpointSecrets } from '../webhooks/endpoints.ts';
import { systemClock } from '../clock.ts';
import { createHostedLinks } from '../composition.ts';
import { checkSecretsKey, resealKeyCheck } from '../secrets/check.ts';
import { SecretsKeyring } from '../secrets/keyring.ts';
import { withDatabase } from './database.ts';
import { print } from './output.ts';

export function registerSecretsCommands(program: Command): void {
  const secrets = program.command('secrets').description('the secrets key');
  secrets
    .command('reseal')
    .description('seal every stored secret under SECRETS_KEY (after a rotation)')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const config = loadConfig();
      const keyring = await SecretsKeyring.load(config);
      const resealed = await withDatabase(async (db) => {
        await checkSecretsKey(db, keyring);
        const webhookEndpoints = await resealEndpointSecrets(db, keyring);
        const hostedInvoiceLinks = await createHostedLinks(config, keyring, systemClock).reseal(db);
        await resealKeyCheck(db, keyring);
        return { webhookEndpoints, hostedInvoiceLinks };
      });
      print({ resealed }, o.json === true);
    });
}
