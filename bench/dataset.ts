// The data set, as rules both the seeder (SQL) and the load generator (ids to ask for) derive
// from: which tenants, how big, which ids, which invoices are drafts, open or paid. Nothing is
// shipped between them but the plan's parameters, so a million ids never cross a pipe.

export interface TenantPlan {
  /** 0 is the largest tenant; ids and e-mail addresses carry it. */
  index: number;
  customers: number;
  invoices: number;
  /** Share of the traffic, relative: customers^0.6 (see TRAFFIC_EXPONENT). */
  weight: number;
}

/**
 * Traffic grows with a tenant's size, but less than in proportion: a tenant with 1,000 times
 * the customers of another sends it about 63 times the requests (1000^0.6). With the default
 * plan the largest tenant gets about a quarter of the requests, the four of 100,000 another
 * quarter, and the 195 small ones together half, each of them a few per second.
 */
export const TRAFFIC_EXPONENT = 0.6;
/** Invoices per customer in the seeded data. */
export const INVOICES_PER_CUSTOMER = 0.5;

/**
 * One tenant of 1,000,000 customers, four of 100,000, the rest of 150–849 (spread by a fixed
 * rule, the same in every run). `scale` shrinks every size for short runs (at least 20
 * customers per tenant).
 */
export function planTenants(count: number, scale: number): TenantPlan[] {
  return Array.from({ length: count }, (_, index) => {
    const nominal = index === 0 ? 1_000_000 : index <= 4 ? 100_000 : 150 + ((index * 7919) % 700);
    const customers = Math.max(20, Math.round(nominal * scale));
    return {
      index,
      customers,
      invoices: Math.max(10, Math.round(customers * INVOICES_PER_CUSTOMER)),
      weight: customers ** TRAFFIC_EXPONENT,
    };
  });
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const t3 = (tenant: number) => `t${pad(tenant, 3)}`;

// Ids the seeder writes, of 1-based numbers within a tenant. The SQL in seed.ts builds the same
// strings; before measuring, api.ts checks that the API serves a customer and an invoice by them.
export const customerId = (tenant: number, n: number) => `cus_${t3(tenant)}_${pad(n, 8)}`;
export const invoiceId = (tenant: number, n: number) => `inv_${t3(tenant)}_${pad(n, 8)}`;
export const customerEmail = (tenant: number, n: number) => `c${n}@${t3(tenant)}.example.com`;
/** Two tax rates per tenant: VAT 19 % and 7 %, both exclusive. */
export const taxRateIds = (tenant: number) => [`txr_${t3(tenant)}_vat19`, `txr_${t3(tenant)}_vat7`];

/**
 * Invoice n's status by n mod 10: 0–1 draft (20 %), 2–6 open (50 %), 7–9 paid (30 %). Issued
 * invoices (open and paid) are numbered in order of n, gapless: see issuedSequence.
 */
export type SeededStatus = 'draft' | 'open' | 'paid';
export function seededStatus(n: number): SeededStatus {
  const r = n % 10;
  return r < 2 ? 'draft' : r < 7 ? 'open' : 'paid';
}

/** The k-th seeded draft of a tenant (k from 0), as invoice number n: 1, 10, 11, 20, 21, … */
export function seededDraft(k: number): number {
  return k === 0 ? 1 : Math.floor((k + 1) / 2) * 10 + ((k + 1) % 2);
}

/** The k-th seeded open invoice (k from 0): 2–6, 12–16, … */
export function seededOpen(k: number): number {
  return Math.floor(k / 5) * 10 + 2 + (k % 5);
}

/**
 * The smallest total a seeded invoice has (a line of at least 1 × 500): a partial payment of
 * 100 on a seeded open invoice never settles it.
 */
export const SEEDED_MIN_TOTAL = 500;
