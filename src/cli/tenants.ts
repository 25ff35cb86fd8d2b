// billing tenants create | list | update
import type { Command } from 'commander';
import { writtenValue } from '../db/unit-of-work.ts';
import { operator } from '../keys/service.ts';
import { createTenant, getTenant, listTenants, updateTenantName } from '../tenants/service.ts';
import { updateSettings } from '../settings/service.ts';
import { parseEnvironments, settingsPatch } from './settings-options.ts';
import { withDatabase } from './database.ts';
import { print } from './output.ts';

export function registerTenantCommands(program: Command): void {
  const tenants = program.command('tenants').description('manage tenants');
  tenants
    .command('create')
    .requiredOption('--name <name>', 'the tenant name')
    .option('--json', 'print JSON')
    .action(async (options: { name: string; json?: boolean }) => {
      const tenant = await withDatabase((db) => createTenant(db, options.name));
      print(tenant, options.json === true);
    });
  tenants
    .command('list')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      print(await withDatabase((db) => listTenants(db)), options.json === true);
    });
  tenants
    .command('update <tenantId>')
    .description(
      "set the tenant's name, and its settings (legal details, payment details, numbering, language, reminders, e-invoices, time zone, grace period) in both environments, or one with --environment",
    )
    .option('--name <name>')
    .option('--environment <environment>', 'live or test (default: both)')
    .option('--legal-name <legalName>')
    .option('--tax-id <taxId>', 'the VAT id, e.g. DE123456789')
    .option('--company-registration <registration>')
    .option('--email <email>')
    .option('--phone <phone>')
    .option('--address-line1 <line1>')
    .option('--address-line2 <line2>')
    .option('--city <city>')
    .option('--state <state>')
    .option('--postal-code <postalCode>')
    .option('--country <country>', 'ISO 3166-1 alpha-2')
    .option('--iban <iban>')
    .option('--bic <bic>')
    .option('--account-name <name>')
    .option('--payment-instructions <text>')
    .option('--payment-terms <text>')
    .option('--invoice-prefix <prefix>')
    .option('--credit-note-prefix <prefix>')
    .option('--locale <locale>', 'en, de, fr, es, it, nl or pl')
    .option('--time-zone <zone>', 'IANA name, e.g. Europe/Berlin (default UTC)')
    .option(
      '--invoice-grace-minutes <minutes>',
      "minutes a subscription's invoice stays a draft before it is issued (default 60)",
    )
    .option('--reminders <days>', 'days after the due date, comma-separated, e.g. 3,14,30')
    .option('--electronic-address <scheme:value>', 'e.g. 9930:DE123456789')
    .option(
      '--einvoice-required <yes|no>',
      'refuse to issue invoices whose e-invoices cannot be made (default no)',
    )
    .option('--json', 'print JSON')
    .action(async (tenantId: string, o: Record<string, string | boolean | undefined>) => {
      const printed = await withDatabase(async (db) => {
        const name =
          typeof o.name === 'string' ? await updateTenantName(db, tenantId, o.name) : null;
        const environments = parseEnvironments(o.environment);
        const patch = settingsPatch(o);
        const settings = [];
        if (Object.keys(patch).length > 0) {
          for (const environment of environments) {
            const request = { actor: operator(tenantId, environment) };
            settings.push(writtenValue(await updateSettings(db, request, patch)));
          }
        }
        return { tenant: name ?? (await getTenant(db, tenantId)), settings };
      });
      print(printed, o.json === true);
    });
}
