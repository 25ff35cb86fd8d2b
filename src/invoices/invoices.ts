// The invoices service as the composition root makes it (src/composition.ts): the rules of
// ./service.ts bound once to the database, the issued-document service and the hosted links, so that
// routes, the worker and the CLI call `invoices.issue(write, id)` and never pass them along.
import type { Clock } from '../clock.ts';
import type { Db } from '../db/pool.ts';
import type { WriteRequest } from '../db/unit-of-work.ts';
import type { IssuedDocuments } from '../documents/service.ts';
import type { HostedLinks } from '../hosted/links.ts';
import type { PageRequest } from '../paging.ts';
import type { TenantScope } from '../tenancy.ts';
import type { InvoiceCreate, InvoiceUpdate, LineCreate } from './draft-schemas.ts';
import type { InvoiceFilters } from './store.ts';
import {
  addInvoiceLine,
  createInvoice,
  deleteDraftInvoice,
  getInvoiceEinvoice,
  getInvoicePdf,
  issueInvoice,
  listInvoices,
  removeInvoiceLine,
  replaceHostedLink,
  sendInvoice,
  showInvoice,
  updateInvoice,
  transitionInvoice,
} from './service.ts';

export interface InvoicesDeps {
  db: Db;
  clock: Clock;
  documents: IssuedDocuments;
  links: HostedLinks;
}

export function createInvoices({ db, clock, documents, links }: InvoicesDeps) {
  return {
    create: (write: WriteRequest, input: InvoiceCreate) => createInvoice(db, clock, write, input),
    show: (scope: TenantScope, id: string) => showInvoice(db, clock, links, scope, id),
    list: (scope: TenantScope, filters: InvoiceFilters, page: PageRequest) =>
      listInvoices(db, clock, links, scope, filters, page),
    update: (write: WriteRequest, id: string, patch: InvoiceUpdate) =>
      updateInvoice(db, clock, links, write, id, patch),
    deleteDraft: (write: WriteRequest, id: string) => deleteDraftInvoice(db, clock, write, id),
    addLine: (write: WriteRequest, id: string, input: LineCreate) =>
      addInvoiceLine(db, clock, write, id, input),
    removeLine: (write: WriteRequest, id: string, lineId: string) =>
      removeInvoiceLine(db, clock, write, id, lineId),
    issue: (write: WriteRequest, id: string) =>
      issueInvoice(db, clock, documents, links, write, id),
    void: (write: WriteRequest, id: string) =>
      transitionInvoice(db, clock, links, write, id, 'void'),
    markUncollectible: (write: WriteRequest, id: string) =>
      transitionInvoice(db, clock, links, write, id, 'mark_uncollectible'),
    send: (write: WriteRequest, id: string) => sendInvoice(db, clock, documents, links, write, id),
    replaceHostedLink: (write: WriteRequest, id: string) =>
      replaceHostedLink(db, clock, links, write, id),
    pdf: (scope: TenantScope, id: string) => getInvoicePdf(db, documents, scope, id, clock.now()),
    einvoice: (scope: TenantScope, id: string, format: 'ubl' | 'cii') =>
      getInvoiceEinvoice(db, documents, scope, id, format, clock.now()),
  };
}

export type Invoices = ReturnType<typeof createInvoices>;
