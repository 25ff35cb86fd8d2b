// The credit notes service as the composition root makes it (src/composition.ts): the rules of
// ./service.ts and ./documents.ts bound once to the database and the document renderer.
import type { Db } from '../db/pool.ts';
import type { WriteRequest } from '../db/unit-of-work.ts';
import type { RenderPool } from '../documents/render-pool.ts';
import type { PageRequest } from '../paging.ts';
import type { TenantScope } from '../tenancy.ts';
import { getCreditNoteEinvoice, getCreditNotePdf, sendCreditNote } from './documents.ts';
import type { CreditNoteCreate } from './schemas.ts';
import { createCreditNote, getCreditNote, listCreditNotes, voidCreditNote } from './service.ts';

export interface CreditNotesDeps {
  db: Db;
  renderer: RenderPool;
}

export function createCreditNotes({ db, renderer }: CreditNotesDeps) {
  return {
    create: (write: WriteRequest, input: CreditNoteCreate) =>
      createCreditNote(db, renderer, write, input),
    get: (scope: TenantScope, id: string) => getCreditNote(db, scope, id),
    list: (scope: TenantScope, filters: { invoiceId?: string | undefined }, page: PageRequest) =>
      listCreditNotes(db, scope, filters, page),
    void: (write: WriteRequest, id: string) => voidCreditNote(db, write, id),
    send: (write: WriteRequest, id: string) => sendCreditNote(db, write, id),
    pdf: (scope: TenantScope, id: string) => getCreditNotePdf(db, renderer, scope, id),
    einvoice: (scope: TenantScope, id: string, format: 'ubl' | 'cii') =>
      getCreditNoteEinvoice(db, renderer, scope, id, format),
  };
}

export type CreditNotes = ReturnType<typeof createCreditNotes>;
