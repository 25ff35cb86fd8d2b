// The credit notes service as the composition root makes it (src/composition.ts): the rules of
// ./service.ts, ./documents.ts and ./mail.ts bound once to the database and the issued-document
// service.
import type { Clock } from '../clock.ts';
import type { Db } from '../db/pool.ts';
import type { WriteRequest } from '../db/unit-of-work.ts';
import type { IssuedDocuments } from '../documents/service.ts';
import type { PageRequest } from '../paging.ts';
import type { TenantScope } from '../tenancy.ts';
import { issuedCreditNote } from './documents.ts';
import { sendCreditNote } from './mail.ts';
import type { CreditNoteCreate } from './schemas.ts';
import { createCreditNote, getCreditNote, listCreditNotes, voidCreditNote } from './service.ts';

export interface CreditNotesDeps {
  db: Db;
  clock: Clock;
  documents: IssuedDocuments;
}

export function createCreditNotes({ db, clock, documents }: CreditNotesDeps) {
  return {
    create: (write: WriteRequest, input: CreditNoteCreate) =>
      createCreditNote(db, clock, documents, write, input),
    get: (scope: TenantScope, id: string) => getCreditNote(db, scope, id),
    list: (scope: TenantScope, filters: { invoiceId?: string | undefined }, page: PageRequest) =>
      listCreditNotes(db, scope, filters, page),
    void: (write: WriteRequest, id: string) => voidCreditNote(db, clock, write, id),
    send: (write: WriteRequest, id: string) => sendCreditNote(db, clock, documents, write, id),
    pdf: async (scope: TenantScope, id: string) =>
      documents.pdf(db, scope, await issuedCreditNote(db, scope, id)),
    einvoice: async (scope: TenantScope, id: string, format: 'ubl' | 'cii') =>
      documents.einvoice(db, scope, await issuedCreditNote(db, scope, id), format),
  };
}

export type CreditNotes = ReturnType<typeof createCreditNotes>;
