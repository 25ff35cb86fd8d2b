// CSV reports with text typed by third parties (customer names, tax rate names): every report
// parses per RFC 4180 to one record per line of the report, with exact field values; a field
// that would start a formula carries the guard `'` first; figures the report computes are
// written as they are, negative ones too (docs/payments.md, CSV).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { toCsv } from '../../src/reports/csv.ts';
import {
  createCustomer,
  createTaxRate,
  daysFromToday,
  issuedInvoice,
  startInvoiceApp,
  tenantApi,
} from '../payments/fixtures.ts';

const server = await startInvoiceApp();

/** A name as typed, and the CSV field it must become. */
const NAMES: [string, string][] = [
  ['Plain Trading Ltd', 'Plain Trading Ltd'],
  ['=1+1', "'=1+1"],
  ['  +SUM(A1:A9)', "'  +SUM(A1:A9)"],
  ['\u00a0-2+3', "'\u00a0-2+3"],
  ['\u200b@cmd', "'\u200b@cmd"],
  ['\u200c\u200d\u2060\ufeff=x', "'\u200c\u200d\u2060\ufeff=x"],
  ['\uff1dHYPERLINK("http://x")', '\'\uff1dHYPERLINK("http://x")'],
  ['\uff0b1', "'\uff0b1"],
  ['\uff0d1', "'\uff0d1"],
  ['\uff20x', "'\uff20x"],
  ['\t=tab', "'\t=tab"],
  ['\r=cr', "'\r=cr"],
  ['\n@lf', "'\n@lf"],
  ['-1200', "'-1200"],
  ['Line\nbreak', 'Line\nbreak'],
  ['Line\rbreak', 'Line\rbreak'],
  ['Line\r\n=forged,row,1', 'Line\r\n=forged,row,1'],
  ['say "hi", ok', 'say "hi", ok'],
  ['Smith &e; <x>', 'Smith &e; <x>'],
];

/**
 * A report as CSV, parsed strictly (RFC 4180: quotes only around whole fields) and as a
 * spreadsheet reads it: any CR or LF outside quotes ends a record.
 */
async function readCsv(secret: string, path: string): Promise<string[][]> {
  const res = await fetch(`${server.url}${path}`, {
    headers: { authorization: `Bearer ${secret}` },
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  assert.equal(res.status, 200, bytes.toString());
  const rows = parse(bytes, { bom: true, record_delimiter: ['\r\n', '\n', '\r'] }) as string[][];
  assert.ok(rows.every((row) => row.length === rows[0]!.length));
  return rows;
}

describe('CSV reports', () => {
  it('gives one record per customer with the name exactly, guarded where it would start a formula', async () => {
    const { api, key } = await tenantApi(server);
    const expected = new Map<string, string>();
    for (const [name, field] of NAMES) {
      const customer = await createCustomer(api, { name });
      await issuedInvoice(api, { customerId: customer.id, dueDate: daysFromToday(10) });
      expected.set(customer.id, field);
    }
    const rows = await readCsv(
      key.secret,
      `/v1/reports/receivables?asOf=${daysFromToday(0)}&format=csv`,
    );
    assert.equal(rows[0]![2], 'customerName');
    assert.equal(rows.length, 1 + NAMES.length, 'a header and one record per customer');
    assert.deepEqual(
      new Map(rows.slice(1).map((row) => [row[1]!, row[2]!])),
      expected,
      'each name exactly, guarded where it would start a formula',
    );
    for (const row of rows.slice(1)) assert.equal(row[9], '100.00', 'the total as a figure');
  });

  it('gives one record per tax rate with its name exactly, guarded where it would start a formula', async () => {
    const { api, key } = await tenantApi(server);
    const customer = await createCustomer(api);
    const expected = new Map<string, string>();
    for (const [name, field] of NAMES) {
      const rate = await createTaxRate(api, { percentage: 19, displayName: name });
      await issuedInvoice(api, { customerId: customer.id, defaultTaxRates: [rate.id] });
      expected.set(rate.id, field);
    }
    const today = daysFromToday(0);
    const rows = await readCsv(key.secret, `/v1/reports/tax?from=${today}&to=${today}&format=csv`);
    assert.equal(rows[0]![4], 'displayName');
    assert.equal(rows.length, 1 + NAMES.length, 'a header and one record per tax rate');
    assert.deepEqual(new Map(rows.slice(1).map((row) => [row[3]!, row[4]!])), expected);
  });

  it('writes the figures a report computes as they are, negative ones unguarded', () => {
    const csv = toCsv(
      [{ amount: '-1200.00', count: -3, name: '-1200.00' }],
      [
        { header: 'amount', value: (r) => r.amount, number: true },
        { header: 'count', value: (r) => r.count, number: true },
        { header: 'name', value: (r) => r.name },
      ],
    );
    assert.equal(csv, "\ufeffamount,count,name\r\n-1200.00,-3,'-1200.00\r\n");
  });
});
