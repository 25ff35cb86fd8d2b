// billing tenants create | list | update
import type { Command } from 'commander';
import { createTenant, listTenants, updateTenant } from '../keys/service.ts';
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
    .description("set the seller's legal details printed on invoices, and numbering prefixes")
    .option('--name <name>')
    .option('--legal-name <legalName>')
    .option('--tax-id <taxId>')
    .option('--email <email>')
    .option('--address-line1 <line1>')
    .option('--address-line2 <line2>')
    .option('--city <city>')
    .option('--state <state>')
    .option('--postal-code <postalCode>')
    .option('--country <country>', 'ISO 3166-1 alpha-2')
    .option('--invoice-prefix <prefix>')
    .option('--credit-note-prefix <prefix>')
    .option('--json', 'print JSON')
    .action(async (tenantId: string, o: Record<string, string | boolean | undefined>) => {
      const text = (name: string) =>
        typeof o[name] === 'string' ? (o[name] as string) : undefined;
      const country = text('country');
      if (country !== undefined && !/^[A-Z]{2}$/.test(country)) {
        throw new Error('--country must be an ISO 3166-1 alpha-2 code such as DE or US');
      }
      const tenant = await withDatabase((db) =>
        updateTenant(db, tenantId, {
          name: text('name'),
          legal_name: text('legalName'),
          tax_id: text('taxId'),
          email: text('email'),
          address_line1: text('addressLine1'),
          address_line2: text('addressLine2'),
          city: text('city'),
          state: text('state'),
          postal_code: text('postalCode'),
          country,
          invoice_prefix: text('invoicePrefix'),
          credit_note_prefix: text('creditNotePrefix'),
        }),
      );
      print(tenant, o.json === true);
    });
}
