// The console's pages for a tenant of 100,000 customers (docs/console.md, "Pages"): each must
// answer in under 200 ms. Not part of `npm test` (it fills a database for a minute): run with
// `npm test test/console/scale.check.ts`. Prints each page's median and worst of 7.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createTestDatabase, startTestServer, testPool } from '../helpers.ts';
import { signedIn } from './browser.ts';

const CUSTOMERS = 100_000;
const url = await createTestDatabase();
const server = await startTestServer(url);
// Filling takes longer than the server's statement timeout allows: a pool of its own.
const fill = testPool(url, 1);

it(
  `answers every page in under 200 ms for ${CUSTOMERS} customers`,
  { timeout: 600_000 },
  async () => {
    const { browser, user } = await signedIn(server, 'admin');
    const t = user.tenantId;
    await fill.query('SET statement_timeout = 0');
    // Customers, an invoice each (issued over the last 12 months, a third open, a third paid,
    // a third past due), an active monthly subscription for half of them.
    await fill.query(
      `INSERT INTO customers (tenant_id, environment, id, name, email, created_at)
     SELECT $1, 'live', 'cus_' || lpad(g::text, 8, '0'), 'Customer ' || g,
            'c' || g || '@example.com', now() - g * interval '1 minute'
       FROM generate_series(1, $2::int) g`,
      [t, CUSTOMERS],
    );
    await fill.query(
      `INSERT INTO invoices (tenant_id, environment, id, customer_id, number, status, currency,
                           subtotal, total, total_excluding_tax, amount_paid, amount_remaining,
                           due_date, customer_snapshot, issued_at, paid_at)
     SELECT $1, 'live', 'inv_' || lpad(g::text, 8, '0'), 'cus_' || lpad(g::text, 8, '0'),
            'N-' || g, CASE WHEN g % 3 = 0 THEN 'paid' ELSE 'open' END, 'eur',
            10000, 10000, 10000, CASE WHEN g % 3 = 0 THEN 10000 ELSE 0 END,
            CASE WHEN g % 3 = 0 THEN 0 ELSE 10000 END,
            (now() - (g % 365) * interval '1 day' + CASE WHEN g % 3 = 1 THEN interval '400 days' ELSE interval '14 days' END)::date,
            '{}', now() - (g % 365) * interval '1 day',
            CASE WHEN g % 3 = 0 THEN now() END
       FROM generate_series(1, $2::int) g`,
      [t, CUSTOMERS],
    );
    await fill.query('ANALYZE customers; ANALYZE invoices; ANALYZE subscriptions');
    const pages = [
      '/console',
      '/console/customers',
      '/console/customers?q=customer%2099',
      '/console/customers?q=c12',
      '/console/customers/cus_00050000',
    ];
    for (const page of pages) {
      const times: number[] = [];
      for (let i = 0; i < 7; i++) {
        const start = performance.now();
        const answer = await browser.get(page);
        times.push(performance.now() - start);
        assert.equal(answer.status, 200, page);
      }
      times.sort((a, b) => a - b);
      console.log(`${page}: median ${times[3]!.toFixed(1)} ms, worst ${times[6]!.toFixed(1)} ms`);
      assert.ok(times[3]! < 200, `${page} took ${times[3]} ms`);
    }
  },
);
