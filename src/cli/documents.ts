// billing documents repair: finds stored e-invoices that are not well-formed XML (stored before
// every text was escaped) and replaces them, and the PDFs that embed them, by the same
// documents rendered again from the data frozen at issue (src/documents/repair.ts).
import { systemClock } from '../clock.ts';
import type { Command } from 'commander';
import { creditNoteModel } from '../credit-notes/documents.ts';
import { createRenderPool } from '../documents/render-pool.ts';
import { repairStoredDocuments } from '../documents/repair.ts';
import { invoiceModel } from '../invoices/documents.ts';
import { ENVIRONMENTS, type TenantScope } from '../tenancy.ts';
import { getTenant, listTenants } from '../tenants/service.ts';
import { withDatabase } from './database.ts';
import { print } from './output.ts';

export function registerDocumentCommands(program: Command): void {
  const documents = program.command('documents').description('issued documents');
  documents
    .command('repair')
    .description(
      'find stored e-invoices that are not well-formed XML, and replace them and the PDFs that embed them by the documents rendered again from the data frozen at issue',
    )
    .option('--tenant <tenantId>', 'only this tenant (default: every tenant)')
    .option('--dry-run', 'count what would be replaced, replace nothing')
    .option('--json', 'print JSON')
    .action(async (o: { tenant?: string; dryRun?: boolean; json?: boolean }) => {
      const counts = await withDatabase(async (db) => {
        const tenants = o.tenant ? [await getTenant(db, o.tenant)] : await listTenants(db);
        const scopes: TenantScope[] = tenants.flatMap((t) =>
          ENVIRONMENTS.map((environment) => ({ tenantId: t.id, environment })),
        );
        const renderer = createRenderPool({ threads: 1 });
        try {
          return await repairStoredDocuments(
            db,
            renderer,
            scopes,
            async (scope, id) =>
              id.startsWith('cn_')
                ? creditNoteModel(db, scope, id)
                : (await invoiceModel(db, scope, id, systemClock.now())).model,
            { dryRun: o.dryRun === true },
          );
        } finally {
          await renderer.close();
        }
      });
      print({ dryRun: o.dryRun === true, ...counts }, o.json === true);
    });
}
