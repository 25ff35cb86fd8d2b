// What a client of the API does, one request at a time: pick a tenant (bigger ones more often),
// one of its two keys, an operation by the mix, and an object at random. What it learns from
// answers (page cursors, drafts it created, invoices it issued) feeds later requests, as a real
// integration's would. One TrafficState per API under test: each has its own database.
import { randomUUID } from 'node:crypto';
import {
  customerEmail,
  customerId,
  invoiceId,
  SEEDED_MIN_TOTAL,
  seededDraft,
  seededOpen,
  taxRateIds,
  type TenantPlan,
} from './dataset.ts';

/** Every kind of request the benchmark sends; each is reported on its own. */
export const OPERATIONS = [
  'getCustomer',
  'listCustomers',
  'listCustomersByEmail',
  'nextPage',
  'getInvoice',
  'createCustomer',
  'createInvoice',
  'issueInvoice',
  'payInvoice',
  'recordPayment',
  'whoami',
  'bare',
] as const;
export type Operation = (typeof OPERATIONS)[number];

export const OPERATION_NAMES: Record<Operation, string> = {
  getCustomer: 'GET /v1/customers/{id}',
  listCustomers: 'GET /v1/customers (first page)',
  listCustomersByEmail: 'GET /v1/customers?email=',
  nextPage: 'GET /v1/customers?cursor= (next page)',
  getInvoice: 'GET /v1/invoices/{id}',
  createCustomer: 'POST /v1/customers',
  createInvoice: 'POST /v1/invoices (1–10 lines)',
  issueInvoice: 'POST /v1/invoices/{id}/issue',
  payInvoice: 'POST /v1/invoices/{id}/pay',
  recordPayment: 'POST /v1/invoices/{id}/payments (partial)',
  whoami: 'GET /v1/auth/whoami',
  bare: 'bare Fastify, whoami-sized body',
};

/**
 * The mixed load, in per cent of requests: 70 % reads, 30 % writes. Reads are mostly single
 * objects (a customer or an invoice looked up after a webhook or from a UI), then lists; writes
 * are mostly creations, then the invoice's life: issue, payment. `payInvoice` stands for
 * "record a payment": where the API offers POST /v1/invoices/{id}/payments, a third of them
 * are partial payments there (PARTIAL_PAYMENTS), the rest pay what remains with /pay.
 */
export const MIX: Partial<Record<Operation, number>> = {
  getCustomer: 20,
  listCustomers: 12,
  listCustomersByEmail: 6,
  nextPage: 10,
  getInvoice: 22,
  createCustomer: 8,
  createInvoice: 12,
  issueInvoice: 5,
  payInvoice: 5,
};
export const PARTIAL_PAYMENTS = 1 / 3;

export interface Scenario {
  /** Relative weights of the operations. */
  weights: Partial<Record<Operation, number>>;
  /** Which tenants get the requests: by traffic weight (dataset.ts), or by size (deep lists). */
  tenants: 'traffic' | 'size';
  /** Whether POST /v1/invoices/{id}/payments may be used (the API offers it). */
  payments: boolean;
}

export interface Request {
  op: Operation;
  method: 'GET' | 'POST';
  path: string;
  secret: string;
  body?: string;
  /** Called with the parsed body of a 2xx answer; absent: the body is not parsed. */
  onSuccess?: (body: unknown) => void;
  /** Rows skipped before this page (next pages only). */
  depth?: number;
}

interface Cursor {
  cursor: string;
  depth: number;
}
interface Open {
  id: string;
  remaining: number;
}

/** What the client knows about one tenant. */
class TenantState {
  seededDraftsTaken = 0;
  seededOpensTaken = 0;
  readonly createdDrafts: string[] = [];
  readonly opens: Open[] = [];
  /** Cursors of pages it has read and not followed yet (at most CURSORS, newest kept). */
  readonly cursors: Cursor[] = [];
  /** Customers and invoices it created lately, for reads of fresh objects. */
  readonly recentCustomers: string[] = [];
  readonly recentInvoices: string[] = [];

  readonly plan: TenantPlan;
  readonly secrets: readonly string[];

  constructor(plan: TenantPlan, secrets: readonly string[]) {
    this.plan = plan;
    this.secrets = secrets;
  }

  /** A draft nobody has issued yet, or null: half the time one it created, if it has one. */
  takeDraft(): string | null {
    if (this.createdDrafts.length > 0 && (Math.random() < 0.5 || !this.hasSeededDraft())) {
      return this.createdDrafts.splice(random(this.createdDrafts.length), 1)[0]!;
    }
    if (!this.hasSeededDraft()) return null;
    return invoiceId(this.plan.index, seededDraft(this.seededDraftsTaken++));
  }

  private hasSeededDraft(): boolean {
    return seededDraft(this.seededDraftsTaken) <= this.plan.invoices;
  }

  /** An open invoice nobody is paying, or null: half the time one it issued, if any. */
  takeOpen(): Open | null {
    const seededLeft = seededOpen(this.seededOpensTaken) <= this.plan.invoices;
    if (this.opens.length > 0 && (Math.random() < 0.5 || !seededLeft)) {
      return this.opens.splice(random(this.opens.length), 1)[0]!;
    }
    if (!seededLeft) return null;
    const n = seededOpen(this.seededOpensTaken++);
    return { id: invoiceId(this.plan.index, n), remaining: SEEDED_MIN_TOTAL };
  }
}

const CURSORS = 8;
const RECENT = 16;
const random = (n: number) => Math.floor(Math.random() * n);
const pick = <T>(items: readonly T[]): T => items[random(items.length)]!;

/** Weighted choice by cumulative weights (binary search). */
class Chooser<T> {
  private readonly cumulative: number[] = [];
  private total = 0;
  private readonly items: readonly T[];
  constructor(items: readonly T[], weight: (item: T) => number) {
    this.items = items;
    for (const item of items) this.cumulative.push((this.total += weight(item)));
  }
  next(): T {
    const x = Math.random() * this.total;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid]! > x) hi = mid;
      else lo = mid + 1;
    }
    return this.items[lo]!;
  }
}

const DESCRIPTIONS = ['Consulting', 'Hosting, monthly', 'Support plan', 'Licence', 'Training day'];
// Most clients page with the default size (25); some ask for 100 or 10.
const LIMITS = [25, 25, 25, 100, 10];

export class TrafficState {
  private readonly tenants: TenantState[];
  private readonly byTraffic: Chooser<TenantState>;
  private readonly bySize: Chooser<TenantState>;
  /** Operation choosers by their scenario's weights (scenarios arrive anew every round). */
  private readonly choosers = new Map<string, Chooser<Operation>>();

  constructor(plan: readonly TenantPlan[], secrets: readonly (readonly string[])[]) {
    this.tenants = plan.map((t, i) => new TenantState(t, secrets[i]!));
    this.byTraffic = new Chooser(this.tenants, (t) => t.plan.weight);
    this.bySize = new Chooser(this.tenants, (t) => t.plan.customers);
  }

  anySecret(): string {
    return this.tenants[0]!.secrets[0]!;
  }

  /** The next request of `scenario`, or null when the operation drawn has nothing to act on. */
  next(scenario: Scenario): Request | null {
    const key = JSON.stringify(scenario.weights);
    let chooser = this.choosers.get(key);
    if (!chooser) {
      const ops = Object.keys(scenario.weights) as Operation[];
      chooser = new Chooser(ops, (op) => scenario.weights[op]!);
      this.choosers.set(key, chooser);
    }
    const op = chooser.next();
    const tenant = (scenario.tenants === 'size' ? this.bySize : this.byTraffic).next();
    return this.build(op, tenant, scenario);
  }

  private build(op: Operation, t: TenantState, scenario: Scenario): Request | null {
    const secret = pick(t.secrets);
    const { index, customers, invoices } = t.plan;
    const get = (o: Operation, path: string): Request => ({ op: o, method: 'GET', path, secret });
    const post = (o: Operation, path: string, body?: unknown): Request => ({
      op: o,
      method: 'POST',
      path,
      secret,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    switch (op) {
      case 'whoami':
        return get(op, '/v1/auth/whoami');
      case 'bare':
        return get(op, '/whoami');
      // One read in ten is of an object the client created lately, if it has one.
      case 'getCustomer': {
        const fresh = t.recentCustomers.length > 0 && Math.random() < 0.1;
        const id = fresh ? pick(t.recentCustomers) : customerId(index, 1 + random(customers));
        return get(op, `/v1/customers/${id}`);
      }
      case 'getInvoice': {
        const fresh = t.recentInvoices.length > 0 && Math.random() < 0.1;
        const id = fresh ? pick(t.recentInvoices) : invoiceId(index, 1 + random(invoices));
        return get(op, `/v1/invoices/${id}`);
      }
      case 'listCustomersByEmail': {
        // One in ten looks for an address nobody has.
        const email =
          Math.random() < 0.1
            ? `nobody${random(1e6)}@example.com`
            : customerEmail(index, 1 + random(customers));
        return get(op, `/v1/customers?email=${encodeURIComponent(email)}`);
      }
      case 'nextPage': {
        if (t.cursors.length === 0) return this.build('listCustomers', t, scenario);
        const { cursor, depth } = t.cursors.splice(random(t.cursors.length), 1)[0]!;
        const limit = pick(LIMITS);
        return {
          ...get(op, `/v1/customers?limit=${limit}&cursor=${encodeURIComponent(cursor)}`),
          depth,
          onSuccess: (body) => keepCursor(t, body, depth + limit),
        };
      }
      case 'listCustomers': {
        const limit = pick(LIMITS);
        return {
          ...get(op, limit === 25 ? '/v1/customers' : `/v1/customers?limit=${limit}`),
          onSuccess: (body) => keepCursor(t, body, limit),
        };
      }
      case 'createCustomer': {
        const n = randomUUID().slice(0, 8);
        return {
          ...post(op, '/v1/customers', {
            name: `New customer ${n}`,
            email: `new-${n}@t${index}.example.com`,
            ...(Math.random() < 0.5
              ? {
                  address: { line1: `${random(200)} Harbour Road`, city: 'Hamburg', country: 'DE' },
                }
              : {}),
          }),
          onSuccess: (body) => remember(t.recentCustomers, (body as { id: string }).id),
        };
      }
      case 'createInvoice':
        return {
          ...post(op, '/v1/invoices', newInvoice(index, customers)),
          onSuccess: (body) => {
            const id = (body as { id: string }).id;
            t.createdDrafts.push(id);
            remember(t.recentInvoices, id);
          },
        };
      case 'issueInvoice': {
        const draft = this.withTenant(t, scenario, (s) => s.takeDraft());
        if (!draft) return null;
        return {
          ...post(op, `/v1/invoices/${draft.item}/issue`),
          secret: pick(draft.tenant.secrets),
          onSuccess: (body) => {
            const invoice = body as { id: string; status: string; amountRemaining: number };
            if (invoice.status === 'open') {
              draft.tenant.opens.push({ id: invoice.id, remaining: invoice.amountRemaining });
            }
          },
        };
      }
      case 'payInvoice':
      case 'recordPayment': {
        const open = this.withTenant(t, scenario, (s) => s.takeOpen());
        if (!open) return null;
        const { tenant, item } = open;
        const key = pick(tenant.secrets);
        if (scenario.payments && item.remaining >= 200 && Math.random() < PARTIAL_PAYMENTS) {
          return {
            ...post('recordPayment', `/v1/invoices/${item.id}/payments`, {
              amount: 100,
              method: 'bank_transfer',
            }),
            secret: key,
            onSuccess: () => tenant.opens.push({ id: item.id, remaining: item.remaining - 100 }),
          };
        }
        return { ...post('payInvoice', `/v1/invoices/${item.id}/pay`), secret: key };
      }
    }
  }

  /**
   * `take` on the tenant drawn, else on up to 20 others drawn the same way: a small tenant may
   * have issued all its drafts or paid all its invoices.
   */
  private withTenant<T>(
    first: TenantState,
    scenario: Scenario,
    take: (t: TenantState) => T | null,
  ): { tenant: TenantState; item: T } | null {
    let tenant = first;
    for (let attempt = 0; attempt < 20; attempt++) {
      const item = take(tenant);
      if (item !== null) return { tenant, item };
      tenant = (scenario.tenants === 'size' ? this.bySize : this.byTraffic).next();
    }
    return null;
  }
}

function remember(recent: string[], id: string): void {
  recent.push(id);
  if (recent.length > RECENT) recent.shift();
}

function keepCursor(t: TenantState, body: unknown, depth: number): void {
  const next = (body as { nextCursor: string | null }).nextCursor;
  if (next === null) return;
  t.cursors.push({ cursor: next, depth });
  if (t.cursors.length > CURSORS) t.cursors.shift();
}

/** A draft of 1–10 lines; some with the tenant's VAT by default, some lines at the lower rate. */
function newInvoice(tenant: number, customers: number): unknown {
  const [vat19, vat7] = taxRateIds(tenant);
  const taxed = Math.random() < 0.4;
  const lines = Array.from({ length: 1 + random(10) }, () => ({
    description: pick(DESCRIPTIONS),
    quantity: 1 + random(5),
    unitAmount: 100 * (1 + random(1000)),
    ...(taxed && Math.random() < 0.2 ? { taxRates: [vat7] } : {}),
  }));
  return {
    customerId: customerId(tenant, 1 + random(customers)),
    currency: 'eur',
    daysUntilDue: 30,
    lines,
    ...(taxed ? { defaultTaxRates: [vat19] } : {}),
    ...(Math.random() < 0.2 ? { memo: 'Thank you for your business.' } : {}),
  };
}
