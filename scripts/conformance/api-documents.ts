// The documents of the conformance run that the API itself issues: a seller (one tenant) makes
// its settings, customers, tax rates, invoices and credit notes over HTTP, then reads back each
// issued document's stored UBL, CII and PDF as a user would. Any unexpected answer stops the
// run with the request and the answer.
import type { EinvoiceSyntax } from '../../src/documents/einvoice/codes.ts';
import type { Api, Reply } from './api-server.ts';

/** What the API served for one syntax: the XML, or the fields a 409 einvoice_incomplete named. */
export type Served = { xml: Buffer } | { missing: string[] };

export interface ApiDocument {
  /** `api/…`, as the table shows it. */
  name: string;
  kind: 'invoice' | 'credit_note';
  served: Record<EinvoiceSyntax, Served>;
  pdf: Buffer;
  /** Syntaxes the API must refuse, with the `missing` it must name (in any order). */
  refused: Partial<Record<EinvoiceSyntax, string[]>>;
}

export interface IssuedInvoice {
  id: string;
  number: string;
  total: number;
  lines: { id: string; amount: number }[];
}

/** A postal address as the API takes it. */
export const address = (line1: string, postalCode: string, city: string, country: string) => ({
  line1,
  postalCode,
  city,
  country,
});

function expectStatus(reply: Reply, status: number, what: string): unknown {
  if (reply.status !== status) {
    throw new Error(
      `${what}: expected ${status}, got ${reply.status} ${reply.bytes.toString('utf8').slice(0, 500)}`,
    );
  }
  return reply.body;
}

/** One seller's requests, and the documents read back so far. */
export class ApiSeller {
  readonly documents: ApiDocument[] = [];
  private readonly api: Api;
  private readonly prefix: string;

  constructor(api: Api, prefix: string) {
    this.api = api;
    this.prefix = prefix;
  }

  async settings(patch: Record<string, unknown>): Promise<void> {
    expectStatus(await this.api.patch('/v1/settings', patch), 200, 'PATCH /v1/settings');
  }

  /** A tax rate; its id. */
  async rate(body: Record<string, unknown>): Promise<string> {
    const reply = await this.api.post('/v1/tax-rates', { displayName: 'VAT', ...body });
    return (expectStatus(reply, 201, 'POST /v1/tax-rates') as { id: string }).id;
  }

  /** A customer; its id. */
  async customer(body: Record<string, unknown>): Promise<string> {
    const reply = await this.api.post('/v1/customers', body);
    return (expectStatus(reply, 201, 'POST /v1/customers') as { id: string }).id;
  }

  /** Creates a draft (due in 30 days unless it has a due date) and issues it. */
  async invoice(body: Record<string, unknown>): Promise<IssuedInvoice> {
    const due = 'dueDate' in body ? {} : { daysUntilDue: 30 };
    const draft = expectStatus(
      await this.api.post('/v1/invoices', { ...due, ...body }),
      201,
      'POST /v1/invoices',
    ) as { id: string };
    const issued = await this.api.post(`/v1/invoices/${draft.id}/issue`);
    return expectStatus(issued, 200, `POST /v1/invoices/${draft.id}/issue`) as IssuedInvoice;
  }

  /** A credit note; its id. */
  async creditNote(body: Record<string, unknown>): Promise<string> {
    const reply = await this.api.post('/v1/credit-notes', body);
    return (expectStatus(reply, 201, 'POST /v1/credit-notes') as { id: string }).id;
  }

  /** Reads back an issued invoice's or credit note's UBL, CII and PDF. */
  async read(
    name: string,
    kind: ApiDocument['kind'],
    id: string,
    refused: ApiDocument['refused'] = {},
  ): Promise<void> {
    const base = kind === 'invoice' ? `/v1/invoices/${id}` : `/v1/credit-notes/${id}`;
    const served = {} as Record<EinvoiceSyntax, Served>;
    for (const syntax of ['ubl', 'cii'] as const) {
      const reply = await this.api.get(`${base}/e-invoice?format=${syntax}`);
      if (reply.status === 200 && reply.type?.startsWith('application/xml')) {
        served[syntax] = { xml: reply.bytes };
        continue;
      }
      const error = (reply.body as { error?: { code?: string; missing?: string[] } } | null)?.error;
      if (reply.status !== 409 || error?.code !== 'einvoice_incomplete' || !error.missing) {
        expectStatus(reply, 200, `GET ${base}/e-invoice?format=${syntax}`);
      }
      served[syntax] = { missing: error!.missing! };
    }
    const pdf = await this.api.get(`${base}/pdf`);
    expectStatus(pdf, 200, `GET ${base}/pdf`);
    if (pdf.type !== 'application/pdf') throw new Error(`GET ${base}/pdf: ${pdf.type}`);
    this.documents.push({
      name: `api/${this.prefix}-${name}`,
      kind,
      served,
      pdf: pdf.bytes,
      refused,
    });
  }
}
