// GET /metrics (docs/api.md, "Operations"): with METRICS_TOKEN it needs the token,
// with METRICS_LISTEN it is served on that address only, with neither it answers only loopback;
// and it shows the backlogs of the mail outbox and of webhook deliveries (queued, oldest age,
// failed), read from the database at each scrape.
import assert from 'node:assert/strict';
import { get } from 'node:http';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig, parseListenAddress } from '../../src/config.ts';
import type { Queryable } from '../../src/db/pool.ts';
import { isLoopbackAddress, presentsToken } from '../../src/http/metrics.ts';
import { mailBacklog } from '../../src/mail/backlog.ts';
import { deliveryBacklog } from '../../src/webhooks/backlog.ts';
import { call, client, createTenantWithKey, waitFor } from '../helpers.ts';
import { startSmtp } from '../mail/smtp.ts';
import { startReceiver } from '../webhooks/receiver.ts';
import {
  assertError,
  createCustomer,
  createInvoice,
  startInvoiceApp,
  tenantApi,
} from '../invoices/fixtures.ts';

const smtp = await startSmtp();
const server = await startInvoiceApp({ smtpUrl: smtp.url, webhooksAllowLoopback: true });
const { api } = await tenantApi(server);
const TOKEN = 'mtk_0123456789abcdefABCDEF';

/** The value of each `billing_…` sample of an exposition. */
function samples(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const [, name, value] of text.matchAll(/^(billing_[a-z_]+) (\S+)$/gm)) {
    found.set(name!, Number(value));
  }
  return found;
}

/** A GET without the tests' fetch, whose answers are held to the API's document. */
function rawGet(url: string): Promise<{ status: number; body: string; requestId?: string }> {
  return new Promise((resolve, reject) => {
    get(url, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode!,
          body: Buffer.concat(chunks).toString('utf8'),
          requestId: response.headers['request-id'] as string | undefined,
        }),
      );
    }).on('error', reject);
  });
}

async function scrape(base = server.url): Promise<Map<string, number>> {
  const res = await call(base, 'GET', '/metrics');
  assert.equal(res.status, 200, res.text);
  return samples(res.text);
}

describe('who may read /metrics', () => {
  it('answers a request from loopback, and any other as a path it does not have', async () => {
    const res = await call(server.url, 'GET', '/metrics');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/plain/);
    assert.ok(samples(res.text).has('billing_mail_outbox_queued'), res.text);
    // The socket's address decides (inject stands in for a connection from elsewhere).
    for (const remoteAddress of ['192.0.2.7', '10.0.0.1', '::ffff:10.0.0.1', 'fd00::2']) {
      const other = await server.app.inject({ method: 'GET', url: '/metrics', remoteAddress });
      assert.equal(other.statusCode, 404, remoteAddress);
      assert.equal(other.json().error.code, 'route_not_found');
      assert.doesNotMatch(other.body, /billing_/);
    }
    for (const remoteAddress of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) {
      const local = await server.app.inject({ method: 'GET', url: '/metrics', remoteAddress });
      assert.equal(local.statusCode, 200, remoteAddress);
    }
    // A request a proxy forwarded is not local, whatever address the header claims.
    for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip', 'via']) {
      const forwarded = await call(server.url, 'GET', '/metrics', {
        headers: { [header]: header === 'forwarded' ? 'for=127.0.0.1' : '127.0.0.1' },
      });
      assertError(forwarded, 404, 'route_not_found');
    }
  });

  it('answers no one by loopback alone behind a proxy (TRUST_PROXY), which need not say it forwarded', async () => {
    const proxied = await server.start({ trustProxy: true });
    const res = await call(proxied.url, 'GET', '/metrics');
    assertError(res, 404, 'route_not_found');
    const injected = await proxied.app.inject({
      method: 'GET',
      url: '/metrics',
      remoteAddress: '127.0.0.1',
    });
    assert.equal(injected.statusCode, 404);
    await proxied.close();
    const tokened = await server.start({ trustProxy: true, metricsToken: TOKEN });
    const ok = await call(tokened.url, 'GET', '/metrics', {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(ok.status, 200);
    await tokened.close();
  });

  it('needs Authorization: Bearer METRICS_TOKEN when it is set, from any address', async () => {
    const guarded = await server.start({ metricsToken: TOKEN });
    for (const authorization of [undefined, 'Bearer wrong', `Bearer ${TOKEN}x`, TOKEN]) {
      const res = await call(guarded.url, 'GET', '/metrics', {
        headers: authorization === undefined ? {} : { authorization },
      });
      assertError(res, 401, 'metrics_token_invalid');
      assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="metrics"');
    }
    const ok = await call(guarded.url, 'GET', '/metrics', {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(ok.status, 200);
    assert.ok(samples(ok.text).has('billing_webhook_deliveries_pending'));
    const remote = await guarded.app.inject({
      method: 'GET',
      url: '/metrics',
      remoteAddress: '192.0.2.7',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(remote.statusCode, 200);
    await guarded.close();
  });

  it('is served on METRICS_LISTEN only, by a listener that stops with the server', async () => {
    const apart = await server.start({ metricsListen: { host: '127.0.0.1', port: 0 } });
    const metricsUrl = apart.metricsUrl!;
    assert.match(metricsUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(metricsUrl, apart.url);
    assert.ok((await scrape(metricsUrl)).has('billing_mail_outbox_failed'));
    const head = await fetch(`${metricsUrl}/metrics`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    // The API port has no /metrics then, not even for loopback.
    assertError(await call(apart.url, 'GET', '/metrics'), 404, 'route_not_found');
    // And the listener has nothing else (read with node:http: the API's document, which every
    // fetch of these tests is held to, describes the API port).
    const elsewhere = await rawGet(`${metricsUrl}/healthz`);
    assert.equal(elsewhere.status, 404);
    assert.equal(JSON.parse(elsewhere.body).error.code, 'route_not_found');
    assert.match(elsewhere.requestId!, /^req_/);
    const post = await call(metricsUrl, 'POST', '/metrics');
    assertError(post, 405, 'method_not_allowed');
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
    await apart.close();
    await assert.rejects(fetch(`${metricsUrl}/metrics`));
  });

  it('asks for the token on the METRICS_LISTEN listener too when both are set', async () => {
    const both = await server.start({
      metricsToken: TOKEN,
      metricsListen: { host: '127.0.0.1', port: 0 },
    });
    assertError(await call(both.metricsUrl!, 'GET', '/metrics'), 401, 'metrics_token_invalid');
    const ok = await call(both.metricsUrl!, 'GET', '/metrics', {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(ok.status, 200);
    const onApi = await call(both.url, 'GET', '/metrics', {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assertError(onApi, 404, 'route_not_found');
    await both.close();
  });

  it('tells loopback addresses from others', () => {
    for (const a of ['127.0.0.1', '127.255.0.9', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1']) {
      assert.equal(isLoopbackAddress(a), true, a);
    }
    for (const a of [
      '128.0.0.1',
      '10.0.0.1',
      '::2',
      '::ffff:10.0.0.1',
      'localhost',
      '',
      undefined,
    ]) {
      assert.equal(isLoopbackAddress(a), false, String(a));
    }
  });

  it('compares the token exactly, whatever its length', () => {
    assert.equal(presentsToken(`Bearer ${TOKEN}`, TOKEN), true);
    assert.equal(presentsToken(`bearer ${TOKEN}`, TOKEN), true);
    for (const header of [undefined, '', 'Bearer', `Basic ${TOKEN}`, `Bearer ${TOKEN.slice(1)}`]) {
      assert.equal(presentsToken(header, TOKEN), false, String(header));
    }
  });

  it('refuses to start with a METRICS_LISTEN that is not host:port, or a short token', () => {
    assert.deepEqual(parseListenAddress('127.0.0.1:9464'), { host: '127.0.0.1', port: 9464 });
    assert.deepEqual(parseListenAddress('[::1]:9464'), { host: '::1', port: 9464 });
    assert.deepEqual(parseListenAddress('metrics.internal:0'), {
      host: 'metrics.internal',
      port: 0,
    });
    for (const wrong of ['9464', ':9464', '127.0.0.1', '127.0.0.1:', '::1:9464', 'host:70000']) {
      assert.throws(
        () => loadConfig({ METRICS_LISTEN: wrong }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.problems.some((p) => p.startsWith(`METRICS_LISTEN=${JSON.stringify(wrong)}`)),
        wrong,
      );
    }
    for (const wrong of ['short', 'a token with spaces in it']) {
      assert.throws(
        () => loadConfig({ METRICS_TOKEN: wrong }),
        (error: unknown) =>
          error instanceof ConfigError && error.problems.some((p) => p.startsWith('METRICS_TOKEN')),
      );
    }
    assert.throws(() =>
      loadConfig({ HOST: '127.0.0.1', PORT: '3000', METRICS_LISTEN: '127.0.0.1:3000' }),
    );
    const config = loadConfig({ METRICS_LISTEN: '0.0.0.0:9464', METRICS_TOKEN: TOKEN });
    assert.deepEqual(config.metricsListen, { host: '0.0.0.0', port: 9464 });
    assert.equal(config.metricsToken, TOKEN);
  });
});

describe('the backlog gauges', () => {
  it('show the mail outbox: queued, the age of the oldest queued message, failed', async () => {
    const before = await scrape();
    // The mail server asks the first attempt to come back later: the message stays queued.
    smtp.refuse(451);
    const customer = await createCustomer(api, { email: 'gauges@example.com' });
    const draft = await createInvoice(api, {
      customerId: customer.id,
      lines: [{ description: 'Consulting', unitAmount: 50_000 }],
    });
    assert.equal((await api.post(`/v1/invoices/${draft.id}/issue`)).status, 200);
    assert.equal((await api.post(`/v1/invoices/${draft.id}/send`)).status, 200);
    const mail = async () =>
      (
        await server.db.query<{ status: string; attempts: number; leased: boolean }>(
          `SELECT status, attempts, lease_token IS NOT NULL AS leased
             FROM mail_outbox WHERE subject_id = $1`,
          [draft.id],
        )
      ).rows[0]!;
    // Its outcome recorded (the lease given back), not only the attempt begun.
    const recorded = async () => {
      const row = await mail();
      return row.attempts === 1 && !row.leased;
    };
    await waitFor(recorded, 'the refused attempt');
    assert.equal((await mail()).status, 'queued');
    // Queued ten minutes ago, as far as the outbox knows.
    await server.db.query(
      `UPDATE mail_outbox SET created_at = created_at - interval '600 seconds' WHERE subject_id = $1`,
      [draft.id],
    );
    const queued = await scrape();
    assert.equal(
      queued.get('billing_mail_outbox_queued'),
      before.get('billing_mail_outbox_queued')! + 1,
    );
    const age = queued.get('billing_mail_outbox_oldest_queued_age_seconds')!;
    assert.ok(age >= 600 && age < 700, `oldest queued: ${age}`);
    assert.equal(
      queued.get('billing_mail_outbox_failed'),
      before.get('billing_mail_outbox_failed'),
    );

    // Refused for good on the next attempt, made due now.
    smtp.refuse(550);
    await server.db.query(`UPDATE mail_outbox SET next_attempt_at = now() WHERE subject_id = $1`, [
      draft.id,
    ]);
    await waitFor(async () => (await mail()).status === 'failed', 'the message failed');
    const failed = await scrape();
    assert.equal(
      failed.get('billing_mail_outbox_queued'),
      before.get('billing_mail_outbox_queued'),
    );
    assert.equal(
      failed.get('billing_mail_outbox_failed'),
      before.get('billing_mail_outbox_failed')! + 1,
    );
    assert.ok(failed.get('billing_mail_outbox_oldest_queued_age_seconds')! < 600);
  });

  it('show webhook deliveries: pending, the age of the oldest pending one, failed', async () => {
    const before = await scrape();
    const receiver = await startReceiver(() => ({ status: 500 }));
    const key = await createTenantWithKey(server.db);
    const tenant = client(server.url, key.secret);
    const endpoint = await tenant.post('/v1/webhook-endpoints', {
      url: receiver.url('/hooks'),
      enabledEvents: ['customer.created'],
    });
    assert.equal(endpoint.status, 201, endpoint.text);
    await createCustomer(tenant, { name: 'Pending Ltd' });
    const delivery = async () =>
      (
        await server.db.query<{ status: string; attempt_count: number; leased: boolean }>(
          `SELECT status, attempt_count, lease_token IS NOT NULL AS leased
             FROM webhook_deliveries WHERE endpoint_id = $1`,
          [endpoint.body.id],
        )
      ).rows[0];
    // The receiver fails the first attempt: the delivery waits for its retry.
    const recorded = async () => {
      const row = await delivery();
      return row?.attempt_count === 1 && !row.leased;
    };
    await waitFor(recorded, 'the failed attempt');
    // Created a quarter of an hour ago, its retry put off (no attempt runs meanwhile).
    await server.db.query(
      `UPDATE webhook_deliveries SET created_at = created_at - interval '900 seconds',
              next_attempt_at = now() + interval '1 hour'
        WHERE endpoint_id = $1`,
      [endpoint.body.id],
    );
    const pending = await scrape();
    assert.equal(
      pending.get('billing_webhook_deliveries_pending'),
      before.get('billing_webhook_deliveries_pending')! + 1,
    );
    const age = pending.get('billing_webhook_deliveries_oldest_pending_age_seconds')!;
    assert.ok(age >= 900 && age < 1000, `oldest pending: ${age}`);
    assert.equal(
      pending.get('billing_webhook_deliveries_failed'),
      before.get('billing_webhook_deliveries_failed'),
    );

    // The last attempt of the schedule fails too.
    await server.db.query(
      `UPDATE webhook_deliveries SET attempt_count = 9, next_attempt_at = now()
        WHERE endpoint_id = $1`,
      [endpoint.body.id],
    );
    await waitFor(async () => (await delivery())?.status === 'failed', 'the delivery failed');
    const failed = await scrape();
    assert.equal(
      failed.get('billing_webhook_deliveries_pending'),
      before.get('billing_webhook_deliveries_pending'),
    );
    assert.equal(
      failed.get('billing_webhook_deliveries_failed'),
      before.get('billing_webhook_deliveries_failed')! + 1,
    );
  });

  it('reads the backlogs through their partial indexes, not the whole tables', async () => {
    // The statements /metrics runs, explained. With sequential scans priced out, a plan that
    // still reads a table whole would show that no index serves the statement.
    const conn = await server.db.connect();
    const plans: string[] = [];
    const explaining = {
      async query(text: string) {
        const { rows } = await conn.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`);
        plans.push(rows.map((r) => r['QUERY PLAN']).join('\n'));
        return { rows: [{}] };
      },
    } as unknown as Queryable;
    try {
      await conn.query('SET enable_seqscan = off');
      await mailBacklog(explaining);
      await deliveryBacklog(explaining);
    } finally {
      await conn.query('RESET enable_seqscan');
      conn.release();
    }
    const [mail, webhooks] = plans;
    assert.match(mail!, /\bmail_outbox_backlog/, mail);
    assert.match(webhooks!, /\bwebhook_deliveries_backlog/, webhooks);
    for (const plan of plans) assert.doesNotMatch(plan, /Seq Scan/, plan);
  });
});
