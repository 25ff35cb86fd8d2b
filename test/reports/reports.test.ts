// The receivables and tax reports (API.md part C), checked against sums the test computes
// itself from the documents the API returned, in JSON and in CSV.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import {
  assertError,
  createCustomer,
  createTaxRate,
  credit,
  daysFromToday,
  getInvoice,
  issuedInvoice,
  pay,
  startInvoiceApp,
  tenantApi,
  type Api,
} from '../payments/fixtures.ts';

const server = await startInvoiceApp();

/** Digits of the minor unit (ISO 4217), written out here for the currencies the test uses. */
const EXPONENT: Record<string, number> = { eur: 2, usd: 2, jpy: 0, kwd: 3 };

/** Minor units as decimal major units, by string arithmetic: 12345 eur → "123.45". */
function major(amount: number, currency: string): string {
  const digits = EXPONENT[currency]!;
  const text = String(Math.abs(amount)).padStart(digits + 1, '0');
  const sign = amount < 0 ? '-' : '';
  return digits === 0
    ? `${sign}${text}`
    : `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000);
}

function bucketOf(dueDate: string | null, asOf: string): string {
  const late = dueDate === null ? 0 : daysBetween(dueDate, asOf);
  if (late <= 0) return 'current';
  if (late <= 30) return '1_30';
  if (late <= 60) return '31_60';
  if (late <= 90) return '61_90';
  return 'over_90';
}

async function allInvoices(api: Api): Promise<any[]> {
  const all: any[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await api.get(`/v1/invoices?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    all.push(...page.body.data);
    cursor = page.body.nextCursor;
  } while (cursor);
  return all;
}

/** A report as CSV, read as bytes (fetch's text() would drop the byte order mark). */
async function readCsv(secret: string, path: string): Promise<string[][]> {
  const res = await fetch(`${server.url}${path}`, {
    headers: { authorization: `Bearer ${secret}` },
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  assert.equal(res.status, 200, bytes.toString());
  assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8; header=present');
  assert.match(res.headers.get('content-disposition') ?? '', /^attachment; filename="[^"]+\.csv"$/);
  assert.deepEqual(
    [...bytes.subarray(0, 3)],
    [0xef, 0xbb, 0xbf],
    'a byte order mark for spreadsheets',
  );
  assert.match(bytes.toString(), /\r\n$/);
  return parse(bytes, { bom: true }) as string[][];
}

/** Moves an object's recorded times into the past, as if it had been made `days` ago. */
async function backdate(table: string, id: string, columns: string[], days: number) {
  const sets = columns.map((c) => `${c} = ${c} - make_interval(days => $2)`).join(', ');
  await server.db.query(`UPDATE ${table} SET ${sets} WHERE id = $1`, [id, days]);
}

describe('receivables', () => {
  it('sums what each customer owes per currency in buckets of days past due', async () => {
    const { api, key } = await tenantApi(server);
    const ada = await createCustomer(api, { name: 'Ada' });
    const bob = await createCustomer(api, { name: '=HYPERLINK("x"), Bob' });
    const vat = await createTaxRate(api, { percentage: 19 });
    const invoice = (customerId: string, body: Record<string, unknown>) =>
      issuedInvoice(api, { customerId, defaultTaxRates: [vat.id], ...body });
    const made = [];
    for (const [customer, due] of [
      [ada, 5],
      [ada, 0],
      [ada, -1],
      [ada, -30],
      [ada, -31],
      [bob, -60],
      [bob, -61],
      [bob, -90],
      [bob, -91],
      [bob, -400],
    ] as const) {
      made.push(await invoice(customer.id, { dueDate: daysFromToday(due) }));
    }
    made.push(await invoice(ada.id, {})); // no due date: current
    made.push(await invoice(ada.id, { currency: 'jpy', dueDate: daysFromToday(-3) }));
    made.push(await invoice(bob.id, { currency: 'kwd', dueDate: daysFromToday(-100) }));
    // Money moves on some of them.
    await pay(api, made[0].id, { amount: 1234 });
    const bounced = await pay(api, made[1].id, { amount: 5000 });
    assert.equal((await api.post(`/v1/payments/${bounced.id}/void`)).status, 200);
    await credit(api, { invoiceId: made[2].id, amount: 2500 });
    const withdrawn = await credit(api, { invoiceId: made[3].id, amount: 700 });
    assert.equal((await api.post(`/v1/credit-notes/${withdrawn.id}/void`)).status, 200);
    await pay(api, made[4].id, { amount: made[4].amountRemaining }); // paid: owes nothing
    assert.equal((await api.post(`/v1/invoices/${made[5].id}/void`)).status, 200); // void
    assert.equal((await api.post(`/v1/invoices/${made[6].id}/mark-uncollectible`)).status, 200);
    await api.post('/v1/invoices', { customerId: ada.id, currency: 'eur', dueDate: '2000-01-01' });

    // The test's own sums, from the invoices as the API shows them.
    const asOf = daysFromToday(0);
    const expected = new Map<string, any>();
    for (const inv of await allInvoices(api)) {
      if (!['open', 'uncollectible'].includes(inv.status) || inv.amountRemaining === 0) continue;
      const key = `${inv.currency} ${inv.customerId}`;
      const line = expected.get(key) ?? {
        currency: inv.currency,
        customerId: inv.customerId,
        invoices: 0,
        buckets: { current: 0, '1_30': 0, '31_60': 0, '61_90': 0, over_90: 0 },
        total: 0,
      };
      line.invoices += 1;
      line.buckets[bucketOf(inv.dueDate, asOf)] += inv.amountRemaining;
      line.total += inv.amountRemaining;
      expected.set(key, line);
    }

    assert.equal(expected.size, 4, 'Ada and Bob in eur, Ada in jpy, Bob in kwd');
    const res = await api.get(`/v1/reports/receivables?asOf=${asOf}`);
    assert.equal(res.status, 200, res.text);
    const report = res.body;
    assert.equal(report.object, 'receivables_report');
    assert.equal(report.asOf, asOf);
    const strip = ({ customerName: _name, ...line }: any) => line;
    assert.deepEqual(
      report.data
        .map(strip)
        .sort((a: any, b: any) =>
          (a.currency + a.customerId).localeCompare(b.currency + b.customerId),
        ),
      [...expected.values()].sort((a, b) =>
        (a.currency + a.customerId).localeCompare(b.currency + b.customerId),
      ),
    );
    assert.deepEqual(
      (await api.get('/v1/reports/receivables')).body,
      report,
      'asOf defaults to today',
    );
    // Buckets add up to the line, lines to the currency's totals.
    for (const line of report.data) {
      const buckets = Object.values(line.buckets) as number[];
      assert.equal(
        buckets.reduce((s, n) => s + n, 0),
        line.total,
      );
    }
    for (const totals of report.totals) {
      const lines = report.data.filter((l: any) => l.currency === totals.currency);
      assert.equal(
        totals.total,
        lines.reduce((s: number, l: any) => s + l.total, 0),
      );
      assert.equal(
        totals.invoices,
        lines.reduce((s: number, l: any) => s + l.invoices, 0),
      );
    }
    assert.deepEqual(
      report.totals.map((t: any) => t.currency),
      ['eur', 'jpy', 'kwd'],
    );

    const rows = await readCsv(key.secret, `/v1/reports/receivables?asOf=${asOf}&format=csv`);
    assert.deepEqual(rows[0], [
      'currency',
      'customerId',
      'customerName',
      'invoices',
      'current',
      '1_30',
      '31_60',
      '61_90',
      'over_90',
      'total',
    ]);
    assert.deepEqual(
      rows.slice(1),
      report.data.map((l: any) => [
        l.currency,
        l.customerId,
        l.customerName.startsWith('=') ? `'${l.customerName}` : l.customerName,
        String(l.invoices),
        ...['current', '1_30', '31_60', '61_90', 'over_90'].map((b) =>
          major(l.buckets[b], l.currency),
        ),
        major(l.total, l.currency),
      ]),
    );
    assert.ok(
      rows.some((r) => r[2] === `'=HYPERLINK("x"), Bob`),
      'a formula is shown as text',
    );
  });

  it('shows what was owed at the end of a past day, as recorded by then', async () => {
    const { api } = await tenantApi(server);
    const customer = await createCustomer(api);
    const dueDate = daysFromToday(-20);
    const history = await issuedInvoice(api, { customerId: customer.id, dueDate }); // 100.00
    const early = await pay(api, history.id, { amount: 1000 });
    const note = await credit(api, { invoiceId: history.id, amount: 2000 });
    const settled = await issuedInvoice(api, { customerId: customer.id, dueDate });
    const cancelled = await issuedInvoice(api, { customerId: customer.id, dueDate });
    for (const inv of [history, settled, cancelled]) {
      await backdate('invoices', inv.id, ['issued_at', 'created_at'], 10);
    }
    await backdate('payments', early.id, ['created_at', 'received_at'], 5);
    await backdate('credit_notes', note.id, ['created_at'], 3);
    // Today: the credit note is voided, the history invoice paid a little more, and the other
    // two are settled.
    assert.equal((await api.post(`/v1/credit-notes/${note.id}/void`)).status, 200);
    await pay(api, history.id, { amount: 500 });
    await pay(api, settled.id, { amount: 10000 });
    assert.equal((await api.post(`/v1/invoices/${cancelled.id}/void`)).status, 200);

    const owed = async (daysAgo: number) => {
      const res = await api.get(`/v1/reports/receivables?asOf=${daysFromToday(-daysAgo)}`);
      assert.equal(res.status, 200, res.text);
      return res.body.totals.map((t: any) => [t.invoices, t.total]);
    };
    assert.deepEqual(await owed(11), [], 'nothing was issued yet');
    assert.deepEqual(await owed(6), [[3, 30000]]);
    assert.deepEqual(await owed(4), [[3, 29000]], 'the first payment');
    assert.deepEqual(await owed(2), [[3, 27000]], 'and the credit note');
    assert.deepEqual(await owed(1), [[3, 27000]]);
    const today = (await getInvoice(api, history.id)).amountRemaining;
    assert.equal(today, 8500);
    assert.deepEqual(await owed(0), [[1, 8500]], 'today: as the invoices show it');
    const buckets = (await api.get(`/v1/reports/receivables?asOf=${daysFromToday(-4)}`)).body
      .data[0].buckets;
    assert.deepEqual(buckets, { current: 0, '1_30': 29000, '31_60': 0, '61_90': 0, over_90: 0 });
  });

  it('refuses a date that is not one', async () => {
    const { api } = await tenantApi(server);
    assertError(
      await api.get('/v1/reports/receivables?asOf=2026-02-30'),
      400,
      'parameter_invalid',
      'asOf',
    );
    assertError(
      await api.get('/v1/reports/receivables?asOf=yesterday'),
      400,
      'parameter_invalid',
      'asOf',
    );
    assertError(
      await api.get('/v1/reports/receivables?format=xlsx'),
      400,
      'parameter_invalid',
      'format',
    );
  });
});

describe('tax report', () => {
  it('sums taxable amounts and tax per currency, country, category and rate, less credit notes', async () => {
    const { api, key } = await tenantApi(server);
    const domestic = await createCustomer(api, { name: 'Domestic' });
    const reverse = await createCustomer(api, { name: 'EU business', taxExempt: 'reverse' });
    const exempt = await createCustomer(api, { name: 'Charity', taxExempt: 'exempt' });
    const de19 = await createTaxRate(api, { percentage: 19, country: 'DE' });
    const de7 = await createTaxRate(api, {
      percentage: 7,
      country: 'DE',
      displayName: 'VAT reduced',
    });
    const fr20 = await createTaxRate(api, { percentage: 20, country: 'FR', inclusive: true });
    const nowhere = await createTaxRate(api, { percentage: 8.875, displayName: 'Sales tax' });
    const lines = (rates: string[][]) =>
      rates.map((taxRates, i) => ({
        description: `L${i}`,
        quantity: 1 + i,
        unitAmount: 3333 + i,
        taxRates,
      }));

    const documents: { invoice?: any; note?: any }[] = [];
    const inv = async (customerId: string, body: Record<string, unknown>) => {
      const invoice = await issuedInvoice(api, { customerId, ...body });
      documents.push({ invoice });
      return invoice;
    };
    const a = await inv(domestic.id, {
      lines: lines([[de19.id], [de7.id], [], [de19.id, nowhere.id]]),
    });
    await inv(reverse.id, { lines: lines([[de19.id], [de7.id]]) });
    await inv(exempt.id, { lines: lines([[de19.id]]) });
    const f = await inv(domestic.id, { lines: lines([[fr20.id], [fr20.id]]) });
    await inv(domestic.id, { currency: 'jpy', lines: lines([[de19.id]]) });
    // Credit notes: an amount split over the breakdown, and one of a line.
    documents.push({ note: await credit(api, { invoiceId: a.id, amount: 4321 }) });
    documents.push({
      note: await credit(api, {
        invoiceId: f.id,
        lines: [{ description: 'Return', amount: 1000, invoiceLineId: f.lines[1].id }],
      }),
    });
    // Left out: a void invoice and its credit note, a void credit note, a draft, and documents
    // of another period.
    const voided = await issuedInvoice(api, { customerId: domestic.id, lines: lines([[de19.id]]) });
    await credit(api, { invoiceId: voided.id, amount: 100 });
    assert.equal((await api.post(`/v1/invoices/${voided.id}/void`)).status, 200);
    const withdrawn = await credit(api, { invoiceId: a.id, amount: 100 });
    assert.equal((await api.post(`/v1/credit-notes/${withdrawn.id}/void`)).status, 200);
    await api.post('/v1/invoices', {
      customerId: domestic.id,
      currency: 'eur',
      lines: lines([[de19.id]]),
    });
    const last = await issuedInvoice(api, { customerId: domestic.id, lines: lines([[de7.id]]) });
    const lastNote = await credit(api, { invoiceId: a.id, amount: 50 });
    await backdate('invoices', last.id, ['issued_at'], 40);
    await backdate('credit_notes', lastNote.id, ['created_at'], 40);

    // The test's own sums from the documents as the API returned them.
    const category = (customerId: string) =>
      customerId === reverse.id ? 'AE' : customerId === exempt.id ? 'E' : 'S';
    const country = new Map([
      [de19.id, 'DE'],
      [de7.id, 'DE'],
      [fr20.id, 'FR'],
      [nowhere.id, null],
    ]);
    const byRate = new Map<string, any>();
    const totals = new Map<string, any>();
    for (const { invoice, note } of documents) {
      const doc = invoice ?? note;
      const sign = invoice ? 1 : -1;
      const customerId = invoice ? invoice.customerId : note.customerId;
      for (const t of doc.taxAmounts) {
        const key = `${doc.currency} ${t.taxRateId} ${category(customerId)}`;
        const line = byRate.get(key) ?? {
          currency: doc.currency,
          country: country.get(t.taxRateId),
          category: category(customerId),
          taxRateId: t.taxRateId,
          displayName: t.displayName,
          percentage: t.percentage,
          invoices: 0,
          creditNotes: 0,
          taxableAmount: 0,
          tax: 0,
        };
        line[invoice ? 'invoices' : 'creditNotes'] += 1;
        line.taxableAmount += sign * t.taxableAmount;
        line.tax += sign * t.amount;
        byRate.set(key, line);
      }
      const sum = totals.get(doc.currency) ?? {
        currency: doc.currency,
        invoices: 0,
        creditNotes: 0,
        totalExcludingTax: 0,
        tax: 0,
        total: 0,
      };
      sum[invoice ? 'invoices' : 'creditNotes'] += 1;
      sum.totalExcludingTax += sign * doc.totalExcludingTax;
      sum.tax += sign * doc.tax;
      sum.total += sign * doc.total;
      totals.set(doc.currency, sum);
    }

    assert.equal(byRate.size, 8, 'seven in eur, one in jpy');
    const from = daysFromToday(-1);
    const to = daysFromToday(0);
    const res = await api.get(`/v1/reports/tax?from=${from}&to=${to}`);
    assert.equal(res.status, 200, res.text);
    const report = res.body;
    assert.equal(report.object, 'tax_report');
    const order = (x: any) => `${x.currency} ${x.taxRateId} ${x.category}`;
    assert.deepEqual(
      [...report.data].sort((x, y) => order(x).localeCompare(order(y))),
      [...byRate.values()].sort((x, y) => order(x).localeCompare(order(y))),
    );
    assert.deepEqual(
      report.totals,
      [...totals.values()].sort((x, y) => x.currency.localeCompare(y.currency)),
    );
    // The rows' tax adds up to the documents' tax, currency by currency.
    for (const sum of report.totals) {
      const tax = report.data
        .filter((l: any) => l.currency === sum.currency)
        .reduce((s: number, l: any) => s + l.tax, 0);
      assert.equal(tax, sum.tax);
      assert.equal(sum.totalExcludingTax + sum.tax, sum.total);
    }
    assert.ok(
      report.data.some((l: any) => l.category === 'AE' && l.tax === 0 && l.taxableAmount > 0),
    );

    const rows = await readCsv(key.secret, `/v1/reports/tax?from=${from}&to=${to}&format=csv`);
    assert.deepEqual(rows[0], [
      'currency',
      'country',
      'category',
      'taxRateId',
      'displayName',
      'percentage',
      'invoices',
      'creditNotes',
      'taxableAmount',
      'tax',
    ]);
    assert.deepEqual(
      rows.slice(1),
      report.data.map((l: any) => [
        l.currency,
        l.country ?? '',
        l.category,
        l.taxRateId,
        l.displayName,
        String(l.percentage),
        String(l.invoices),
        String(l.creditNotes),
        major(l.taxableAmount, l.currency),
        major(l.tax, l.currency),
      ]),
    );

    // The earlier period holds the backdated documents alone.
    const earlier = await api.get(
      `/v1/reports/tax?from=${daysFromToday(-45)}&to=${daysFromToday(-30)}`,
    );
    assert.deepEqual(
      earlier.body.totals.map((t: any) => [t.currency, t.invoices, t.creditNotes]),
      [['eur', 1, 1]],
    );
    assert.equal(earlier.body.totals[0].total, last.total - lastNote.total);
  });

  it('refuses a period that ends before it starts, or is missing a bound', async () => {
    const { api } = await tenantApi(server);
    assertError(
      await api.get('/v1/reports/tax?from=2026-02-01&to=2026-01-31'),
      400,
      'parameter_invalid',
      'to',
    );
    assertError(
      await api.get('/v1/reports/tax?from=2026-02-29&to=2026-03-31'),
      400,
      'parameter_invalid',
      'from',
    );
    assertError(await api.get('/v1/reports/tax?to=2026-03-31'), 400, 'parameter_missing', 'from');
  });
});
