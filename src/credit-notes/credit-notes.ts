// The credit notes service as the composition root makes it (src/composition.ts): the rules of
// ./service.ts and ./documents.ts bound once to the database and the document renderer.
import type { Clock } from '../clock.ts';
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
  clock: Clock;
  renderer: RenderPool;
}

export function createCreditNotes({ db, clock, renderer }: CreditNotesDeps) {
  return {
    create: (write: WriteRequest, input: CreditNoteCreate) =>
      createCreditNote(db, clock, renderer, write, input),
    get: (scope: TenantScope, id: string) => getCreditNote(db, scope, id),
    list: (scope: TenantScope, filters: { invoiceId?: string | undefined }, page: PageRequest) =>
      listCreditNotes(db, scope, filters, page),
    void: (write: WriteRequest, id: string) => voidCreditNote(db, clock, write, id),
    send: (write: WriteRequest, id: string) => sendCreditNote(db, clock, write, id),
    pdf: (scope: TenantScope, id: string) => getCreditNotePdf(db, renderer, scope, id),
    einvoice: (scope: TenantScope, id: string, format: 'ubl' | 'cii') =>
      getCreditNoteEinvoice(db, renderer, scope, id, format),
  };
}

export type CreditNotes = ReturnType<typeof createCreditNotes>;
