// billing keys create | list | rotate | revoke
import type { Command } from 'commander';
import { writtenValue } from '../db/unit-of-work.ts';
import {
  createApiKey,
  listApiKeysOfTenant,
  locateApiKey,
  operator,
  revokeApiKey,
  rotateApiKey,
  type IssuedApiKey,
} from '../keys/service.ts';
import type { Environment } from '../tenancy.ts';
import { withDatabase } from './database.ts';
import { parseDuration, print } from './output.ts';

function shownOnce(key: IssuedApiKey) {
  return {
    id: key.id,
    secret: key.secret,
    tenantId: key.tenantId,
    environment: key.environment,
    scopes: key.scopes,
    name: key.name,
    rotatedFrom: key.rotatedFrom,
    createdAt: key.createdAt,
  };
}

export function registerKeyCommands(program: Command): void {
  const keys = program.command('keys').description('manage API keys');
  keys
    .command('create')
    .requiredOption('--tenant <tenantId>')
    .requiredOption('--environment <environment>', 'test or live')
    .requiredOption('--scope <scope...>', 'a scope; repeat for several')
    .option('--name <name>')
    .option('--json', 'print JSON')
    .action(
      async (o: {
        tenant: string;
        environment: string;
        scope: string[];
        name?: string;
        json?: boolean;
      }) => {
        if (o.environment !== 'test' && o.environment !== 'live') {
          throw new Error('--environment must be test or live');
        }
        const key = await withDatabase(async (db) =>
          writtenValue(
            await createApiKey(
              db,
              { actor: operator(o.tenant, o.environment as Environment) },
              { scopes: o.scope, name: o.name ?? null },
            ),
          ),
        );
        print(shownOnce(key), o.json === true);
      },
    );
  keys
    .command('list')
    .requiredOption('--tenant <tenantId>')
    .option('--json', 'print JSON')
    .action(async (o: { tenant: string; json?: boolean }) => {
      print(await withDatabase((db) => listApiKeysOfTenant(db, o.tenant)), o.json === true);
    });
  keys
    .command('rotate <keyId>')
    .option('--expire-old-in <duration>', 'the old key stops working after this (e.g. 90s, 1h, 7d)')
    .option('--json', 'print JSON')
    .action(async (keyId: string, o: { expireOldIn?: string; json?: boolean }) => {
      const expireOldInSeconds = o.expireOldIn === undefined ? null : parseDuration(o.expireOldIn);
      const key = await withDatabase(async (db) => {
        const old = await locateApiKey(db, keyId);
        const request = { actor: operator(old.tenantId, old.environment) };
        return writtenValue(await rotateApiKey(db, request, keyId, { expireOldInSeconds }));
      });
      print(shownOnce(key), o.json === true);
    });
  keys
    .command('revoke <keyId>')
    .option('--json', 'print JSON')
    .action(async (keyId: string, o: { json?: boolean }) => {
      const key = await withDatabase(async (db) => {
        const old = await locateApiKey(db, keyId);
        return writtenValue(
          await revokeApiKey(db, { actor: operator(old.tenantId, old.environment) }, keyId),
        );
      });
      print(key, o.json === true);
    });
}
