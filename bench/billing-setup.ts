// Set-up of the billing run's benchmark: per tenant, a catalogue, a test clock and eight
// template subscriptions made through the API (so their rows are exactly what the API makes),
// then cloned in bulk SQL (a customer, a subscription and its items per clone, new ids and
// e-mail addresses, every other column copied), then one usage event per metered clone sent
// through the API. The clones stand where the templates stand: active in their first period,
// due at the boundary.
import { queryOnce } from './database.ts';
import type { TenantKeys } from './project.ts';

export interface BillingTenant {
  key: TenantKeys;
  headers: Record<string, string>;
  clockId: string;
  templates: { subscriptionId: string; customerId: string; metered: boolean }[];
  eventName: string;
}

const CLOCK_START = '2027-01-20T00:00:00.000Z';
// At the clock's time: usage may be at most 5 minutes ahead of its customer's time, and the
// period billed at the boundary starts here.
const USAGE_AT = CLOCK_START;

async function call(origin: string, headers: Record<string, string>, path: string, body: unknown) {
  const res = await fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`POST ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as { id: string } & Record<string, unknown>;
}

/** The tenant's catalogue, clock and eight templates (licensed, tiered, metered; autoSend half). */
export async function makeTemplates(
  origin: string,
  key: TenantKeys,
  boundary: string,
): Promise<BillingTenant> {
  const headers = { authorization: `Bearer ${key.secrets[0]}` };
  const post = (path: string, body: unknown) => call(origin, headers, path, body);
  const res = await fetch(`${origin}/v1/settings`, {
    method: 'PATCH',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ invoiceGraceMinutes: 0 }),
  });
  if (res.status !== 200) throw new Error(`settings: ${res.status} ${await res.text()}`);
  const vat = await post('/v1/tax-rates', { displayName: 'VAT', inclusive: false, percentage: 19 });
  const product = (name: string) => post('/v1/products', { name, taxRates: [vat.id] });
  const recurring = { interval: 'month', intervalCount: 1 };
  const base = await post('/v1/prices', {
    productId: (await product('Base plan')).id,
    currency: 'eur',
    type: 'recurring',
    recurring: { ...recurring, usage: 'licensed' },
    billingScheme: 'per_unit',
    unitAmount: 4900,
  });
  const seats = await post('/v1/prices', {
    productId: (await product('Seats')).id,
    currency: 'eur',
    type: 'recurring',
    recurring: { ...recurring, usage: 'licensed' },
    billingScheme: 'tiered',
    tiersMode: 'graduated',
    tiers: [
      { upTo: 5, unitAmount: 1000 },
      { upTo: null, unitAmount: 800, flatAmount: 500 },
    ],
  });
  const eventName = 'api_call';
  const meter = await post('/v1/meters', {
    eventName,
    aggregation: 'sum',
    valueProperty: 'calls',
    displayName: 'API calls',
  });
  const calls = await post('/v1/prices', {
    productId: (await product('API calls')).id,
    currency: 'eur',
    type: 'recurring',
    recurring: { ...recurring, usage: 'metered', meterId: meter.id },
    billingScheme: 'per_unit',
    unitAmountDecimal: '0.25',
  });
  const clock = await post('/v1/test-clocks', { name: 'billing run', frozenTime: CLOCK_START });
  const variants = [
    [{ priceId: base.id }],
    [{ priceId: base.id }, { priceId: seats.id, quantity: 3 }],
    [{ priceId: base.id }, { priceId: calls.id }],
    [{ priceId: seats.id, quantity: 12 }, { priceId: calls.id }],
  ];
  const templates: BillingTenant['templates'] = [];
  for (const [i, items] of [...variants, ...variants].entries()) {
    const autoSend = i >= variants.length;
    const customer = await post('/v1/customers', {
      name: `Template ${i}`,
      email: `template${i}@example.com`,
      testClockId: clock.id,
    });
    const sub = await post('/v1/subscriptions', {
      customerId: customer.id,
      items,
      billingCycleAnchor: boundary,
      daysUntilDue: 14,
      autoSend,
    });
    templates.push({
      subscriptionId: sub.id,
      customerId: customer.id,
      metered: items.some((item) => item.priceId === calls.id),
    });
  }
  return { key, headers, clockId: clock.id, templates, eventName };
}

const columns = async (url: string, table: string) =>
  (
    await queryOnce<{ name: string }>(
      url,
      `SELECT column_name AS name FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
      [table],
    )
  ).map((r) => r.name);

/**
 * `count` clones of the tenant's templates, in turn: a customer, its subscription (no latest
 * invoice: the template's is not theirs) and its items, in statements of 20,000 clones.
 */
export async function cloneTemplates(url: string, tenant: BillingTenant, count: number) {
  const t = tenant.key.tenantId;
  const tag = t.slice(-6);
  const copy = async (table: string, replaced: Record<string, string>, from: string) => {
    const names = await columns(url, table);
    const list = names.join(', ');
    const values = names.map((n) => replaced[n] ?? `src.${n}`).join(', ');
    return (lo: number, hi: number) =>
      queryOnce(
        url,
        `INSERT INTO ${table} (${list})
         SELECT ${values} FROM generate_series($2::int, $3::int) AS g(n)
           JOIN ${from}`,
        [t, lo, hi, tenant.templates.map((x) => x.subscriptionId)],
      );
  };
  // Clone n copies template n mod 8 (the array $4, 1-based).
  const template = `src.tenant_id = $1 AND src.environment = 'test'`;
  const customers = await copy(
    'customers',
    {
      id: `'cus_run_${tag}_' || g.n`,
      name: `'Customer ' || g.n`,
      email: `'c' || g.n || '@run.example.com'`,
    },
    `subscriptions s ON s.tenant_id = $1 AND s.id = ($4::text[])[g.n % 8 + 1]
           JOIN customers src ON ${template} AND src.id = s.customer_id`,
  );
  const subscriptions = await copy(
    'subscriptions',
    {
      id: `'sub_run_${tag}_' || g.n`,
      customer_id: `'cus_run_${tag}_' || g.n`,
      latest_invoice_id: 'NULL',
    },
    `subscriptions src ON ${template} AND src.id = ($4::text[])[g.n % 8 + 1]`,
  );
  const items = await copy(
    'subscription_items',
    {
      subscription_id: `'sub_run_${tag}_' || g.n`,
      id: `'si_run_${tag}_' || g.n || '_' || src.position`,
    },
    `subscription_items src ON ${template} AND src.subscription_id = ($4::text[])[g.n % 8 + 1]`,
  );
  for (let lo = 1; lo <= count; lo += 20_000) {
    const hi = Math.min(count, lo + 19_999);
    await customers(lo, hi);
    await subscriptions(lo, hi);
    await items(lo, hi);
  }
}

/** One usage event per metered clone of `count`, 1,000 a request, eight requests at a time. */
export async function sendUsage(origin: string, tenant: BillingTenant, count: number) {
  // Clone n copies template n mod 8: its customer is metered when that template is.
  const tag = tenant.key.tenantId.slice(-6);
  const customers = Array.from({ length: count + 1 }, (_, n) => n)
    .filter((n) => n > 0 && tenant.templates[n % 8]!.metered)
    .map((n) => ({ id: `cus_run_${tag}_${n}` }));
  const batches: { id: string }[][] = [];
  for (let i = 0; i < customers.length; i += 1000) batches.push(customers.slice(i, i + 1000));
  const send = async (batch: { id: string }[], b: number) => {
    const answer = await call(origin, tenant.headers, '/v1/usage-events', {
      events: batch.map((c, i) => ({
        id: `u${b}_${i}`,
        eventName: tenant.eventName,
        customerId: c.id,
        timestamp: USAGE_AT,
        properties: { calls: 100 + ((b * 1000 + i) % 900) },
      })),
    });
    const refused = (answer.data as { status: string }[]).filter((e) => e.status === 'error');
    if (refused.length > 0) throw new Error(`usage refused: ${JSON.stringify(refused[0])}`);
  };
  for (let i = 0; i < batches.length; i += 8) {
    await Promise.all(batches.slice(i, i + 8).map((batch, j) => send(batch, i + j)));
  }
}
