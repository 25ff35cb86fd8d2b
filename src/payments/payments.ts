// The payments service as the composition root makes it (src/composition.ts): the rules of
// ./service.ts bound once to the database, the hosted links and the clock.
import type { Clock } from '../clock.ts';
import type { Db } from '../db/pool.ts';
import type { WriteRequest } from '../db/unit-of-work.ts';
import type { HostedLinks } from '../hosted/links.ts';
import type { PageRequest } from '../paging.ts';
import type { TenantScope } from '../tenancy.ts';
import type { InvoicePay, PaymentCreate } from './schemas.ts';
import {
  createPayment,
  getPayment,
  listPayments,
  payInvoice,
  paymentFromRow,
  voidPayment,
} from './service.ts';

export interface PaymentsDeps {
  db: Db;
  links: HostedLinks;
  clock: Clock;
}

export function createPayments({ db, links, clock }: PaymentsDeps) {
  return {
    create: (write: WriteRequest, invoiceId: string, input: PaymentCreate) =>
      createPayment(db, clock, write, invoiceId, input),
    payInvoice: (write: WriteRequest, invoiceId: string, input?: InvoicePay) =>
      payInvoice(db, clock, links, write, invoiceId, input),
    get: (scope: TenantScope, id: string) => getPayment(db, scope, id),
    list: (
      scope: TenantScope,
      filters: { invoiceId?: string | undefined; customerId?: string | undefined },
      page: PageRequest,
    ) => listPayments(db, scope, filters, page),
    void: (write: WriteRequest, id: string) => voidPayment(db, clock, write, id),
    fromRow: paymentFromRow,
  };
}

export type Payments = ReturnType<typeof createPayments>;
