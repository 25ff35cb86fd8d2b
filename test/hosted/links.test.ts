// Hosted invoice links (API.md part C): every issued invoice has `hostedInvoiceUrl`, a capability
// URL of at least 128 random bits stored only hashed (and sealed under the server's key), valid
// until 120 days after the due date, replaceable (the old link stops at once), and nowhere in
// clear at rest: not in the link table, not in events, not in a stored idempotent result, not in
// the mail outbox.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { loadConfig, ConfigError } from '../../src/config.ts';
import { linkExpiry } from '../../src/hosted/links.ts';
import { listeningUrl } from '../../src/hosted/public-url.ts';
import { client, createTenantWithKey, rotateKey, type ApiResponse, waitFor } from '../helpers.ts';
import { startSmtp } from '../mail/smtp.ts';
import {
  assertError,
  createInvoice,
  startInvoiceApp,
  tenantApi,
  type Api,
} from '../invoices/fixtures.ts';
import { completeSeller, customerIn, fetchPage, issuedInvoice, pagePath } from './fixtures.ts';

const smtp = await startSmtp();
const server = await startInvoiceApp({ smtpUrl: smtp.url, hostedPageRateLimit: 1_000_000 });
const { api, key } = await tenantApi(server);
await completeSeller(server.db, key.tenantId);

const TOKEN_URL = /^http:\/\/127\.0\.0\.1:\d+\/i\/([A-Za-z0-9_-]{32})$/;

function tokenOf(url: string): string {
  const match = TOKEN_URL.exec(url);
  assert.ok(match, `not a hosted URL: ${url}`);
  return match[1]!;
}

/** Every row of every table, as text, that contains `needle`. */
async function rowsContaining(needle: string): Promise<string[]> {
  const { rows: tables } = await server.db.query<{ name: string }>(
    `SELECT quote_ident(table_name) AS name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  const found: string[] = [];
  for (const { name } of tables) {
    const { rows } = await server.db.query(`SELECT t::text AS row FROM ${name} t`);
    for (const { row } of rows) if (row.includes(needle)) found.push(name);
  }
  return found;
}

/** What a repeated write would change: the link, status, amounts, metadata, e-mails queued. */
async function stateOf(api: Api, invoiceId: string) {
  const { body } = await api.get(`/v1/invoices/${invoiceId}`);
  const { rows } = await server.db.query<{ count: number }>(
    'SELECT count(*)::int AS count FROM mail_outbox WHERE tenant_id = $1 AND subject_id = $2',
    [key.tenantId, invoiceId],
  );
  const { hostedInvoiceUrl, status, amountRemaining, metadata } = body;
  return { hostedInvoiceUrl, status, amountRemaining, metadata, mails: rows[0]!.count };
}

describe('hosted invoice links', () => {
  it('gives an issued invoice a URL of 192 random bits at issue, and a draft none', async () => {
    const customer = await customerIn(api, 'en');
    const draft = await createInvoice(api, {
      customerId: customer.id,
      lines: [{ description: 'Audit', unitAmount: 10_000 }],
    });
    assert.equal(draft.hostedInvoiceUrl, null);
    const issued = await api.post(`/v1/invoices/${draft.id}/issue`);
    assert.equal(issued.status, 200, issued.text);
    const token = tokenOf(issued.body.hostedInvoiceUrl);
    assert.equal(Buffer.from(token, 'base64url').length, 24);
    assert.ok(issued.body.hostedInvoiceUrl.startsWith(`${server.url}/i/`));

    // Shown again on every read, list included.
    const read = await api.get(`/v1/invoices/${draft.id}`);
    assert.equal(read.body.hostedInvoiceUrl, issued.body.hostedInvoiceUrl);
    const listed = await api.get(`/v1/invoices?customerId=${customer.id}`);
    assert.equal(listed.body.data[0].hostedInvoiceUrl, issued.body.hostedInvoiceUrl);
    // Every issued invoice gets its own.
    const other = await issuedInvoice(api);
    assert.notEqual(tokenOf(other.hostedInvoiceUrl), token);
    assert.equal((await fetchPage(server.url, pagePath(other.hostedInvoiceUrl))).status, 200);
  });

  it('keeps the token nowhere in clear: only its hash and a sealed copy', async () => {
    const invoice = await issuedInvoice(api);
    const token = tokenOf(invoice.hostedInvoiceUrl);
    // Sent, so that the e-mail outbox has held the message too.
    assert.equal((await api.post(`/v1/invoices/${invoice.id}/send`)).status, 200);
    await waitFor(
      async () => (await api.get(`/v1/invoices/${invoice.id}`)).body.email?.status === 'sent',
      'sent',
    );
    assert.deepEqual(await rowsContaining(token), []);
    const hash = createHash('sha256').update(token).digest();
    const { rows } = await server.db.query(
      `SELECT l.token_sealed FROM hosted_invoice_links l
         JOIN hosted_invoice_link_lookup k USING (token_hash)
        WHERE l.tenant_id = $1 AND l.invoice_id = $2 AND l.token_hash = $3`,
      [key.tenantId, invoice.id, hash],
    );
    assert.equal(rows.length, 1);
    assert.match(rows[0].token_sealed, /^v1\./);
  });

  it('writes no token into the log', async () => {
    const lines: string[] = [];
    const logged = await server.start({ logLevel: 'info' }, { write: (l) => void lines.push(l) });
    const invoice = await issuedInvoice(client(logged.url, key.secret));
    const path = pagePath(invoice.hostedInvoiceUrl);
    assert.equal((await fetchPage(logged.url, path)).status, 200);
    assert.equal((await fetchPage(logged.url, `${path}/pdf`)).status, 200);
    assert.equal((await fetchPage(logged.url, `${path}x`)).status, 404);
    assert.ok(
      lines.some((l) => l.includes('/i/:token')),
      'the page requests were logged',
    );
    const token = tokenOf(invoice.hostedInvoiceUrl);
    assert.deepEqual(
      lines.filter((l) => l.includes(token.slice(0, 20))),
      [],
    );
  });

  it('leaves the URL out of events (null there), which are stored and delivered', async () => {
    const invoice = await issuedInvoice(api);
    const events = await api.get('/v1/events?type=invoice.issued');
    const event = events.body.data.find((e: any) => e.data.object.id === invoice.id);
    assert.ok(event, events.text);
    assert.equal(event.data.object.hostedInvoiceUrl, null);
  });

  it('replays an issue with its URL to the very key only, sealed at rest', async () => {
    const customer = await customerIn(api, 'en');
    const draft = await createInvoice(api, {
      customerId: customer.id,
      lines: [{ description: 'Audit', unitAmount: 10_000 }],
    });
    const headers = { 'idempotency-key': `issue-${draft.id}` };
    const first = await api.post(`/v1/invoices/${draft.id}/issue`, undefined, headers);
    assert.equal(first.status, 200, first.text);
    const again = await api.post(`/v1/invoices/${draft.id}/issue`, undefined, headers);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.text, first.text);
    // Sealed under the server's key, which seals the link's token anyway: not in clear.
    assert.deepEqual(await rowsContaining(tokenOf(first.body.hostedInvoiceUrl)), []);
    const { rows } = await server.db.query<{ response_body: string; sealed: boolean }>(
      'SELECT response_body, sealed FROM idempotency_keys WHERE tenant_id = $1 AND key = $2',
      [key.tenantId, headers['idempotency-key']],
    );
    assert.equal(rows[0]!.sealed, true);
    assert.doesNotMatch(rows[0]!.response_body, /^v1\.caller\./);
    // Another key of the tenant, of another lineage, does not get it.
    const stranger = await createTenantWithKey(server.db, { tenantId: key.tenantId });
    const refused = await client(server.url, stranger.secret).post(
      `/v1/invoices/${draft.id}/issue`,
      undefined,
      headers,
    );
    assertError(refused, 422, 'idempotency_key_reused');
  });

  it('replays every answer that shows the URL to the very key, not to a key rotated from it', async () => {
    // A key of its own, so that rotating it leaves the file's other tests alone.
    const owner = await createTenantWithKey(server.db, { tenantId: key.tenantId });
    const mine = client(server.url, owner.secret);
    const issued = () => issuedInvoice(mine, { lines: 1 });
    const draft = async () =>
      createInvoice(mine, {
        customerId: (await customerIn(mine, 'en')).id,
        lines: [{ description: 'Audit', unitAmount: 10_000 }],
      });
    // Every write that answers with an issued invoice, and one whose answer shows no URL.
    const writes: { name: string; method: 'post' | 'patch'; path: string; body?: object }[] = [
      { name: 'issue', method: 'post', path: `/v1/invoices/${(await draft()).id}/issue` },
      { name: 'void', method: 'post', path: `/v1/invoices/${(await issued()).id}/void` },
      {
        name: 'mark-uncollectible',
        method: 'post',
        path: `/v1/invoices/${(await issued()).id}/mark-uncollectible`,
      },
      { name: 'send', method: 'post', path: `/v1/invoices/${(await issued()).id}/send` },
      { name: 'pay', method: 'post', path: `/v1/invoices/${(await issued()).id}/pay` },
      {
        name: 'metadata',
        method: 'patch',
        path: `/v1/invoices/${(await issued()).id}`,
        body: { metadata: { order: '42' } },
      },
      {
        name: 'hosted-link',
        method: 'post',
        path: `/v1/invoices/${(await issued()).id}/hosted-link`,
      },
    ];
    const headers = (name: string) => ({ 'idempotency-key': `shown-${owner.keyId}-${name}` });
    const firsts = new Map<string, ApiResponse>();
    for (const w of writes) {
      const first = await mine[w.method](w.path, w.body, headers(w.name));
      assert.equal(first.status, 200, `${w.name}: ${first.text}`);
      tokenOf(first.body.hostedInvoiceUrl);
      firsts.set(w.name, first);
    }
    const draftPatch = `/v1/invoices/${(await draft()).id}`;
    const control = await mine.patch(draftPatch, { memo: 'No URL here' }, headers('draft'));
    assert.equal(control.status, 200, control.text);
    assert.equal(control.body.hostedInvoiceUrl, null);

    const rotated = client(server.url, (await rotateKey(server.db, owner)).secret);
    for (const w of writes) {
      const first = firsts.get(w.name)!;
      const before = await stateOf(mine, first.body.id);
      const refused = await rotated[w.method](w.path, w.body, headers(w.name));
      assertError(refused, 422, 'idempotency_key_reused');
      assert.ok(!refused.text.includes(first.body.hostedInvoiceUrl), w.name);
      // Nothing was done again: no new link, payment, e-mail or change.
      assert.deepEqual(await stateOf(mine, first.body.id), before, w.name);
      // The very key still gets its answer, URL and all.
      const replayed = await mine[w.method](w.path, w.body, headers(w.name));
      assert.equal(replayed.headers.get('idempotent-replayed'), 'true', w.name);
      assert.equal(replayed.text, first.text, w.name);
    }
    // An answer that shows no URL is still replayed to the key's rotation lineage.
    const lineage = await rotated.patch(draftPatch, { memo: 'No URL here' }, headers('draft'));
    assert.equal(lineage.headers.get('idempotent-replayed'), 'true');
    assert.equal(lineage.text, control.text);
    // The e-mail `send` queued is out before the next test counts deliveries.
    const sent = firsts.get('send')!.body.id;
    await waitFor(
      async () => (await mine.get(`/v1/invoices/${sent}`)).body.sentAt !== null,
      'sent',
    );
  });

  it('e-mails the link with the invoice, added as the message is sent', async () => {
    const invoice = await issuedInvoice(api, { locale: 'de' });
    const before = smtp.deliveries.length;
    assert.equal((await api.post(`/v1/invoices/${invoice.id}/send`)).status, 200);
    await waitFor(async () => smtp.deliveries.length > before, 'delivered');
    const raw = smtp.deliveries
      .slice(before)
      .map((d) => d.raw)
      .join('\n');
    // Quoted-printable may fold the line: unfold soft line breaks before looking.
    const text = raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    assert.ok(text.includes(`Online ansehen: ${invoice.hostedInvoiceUrl}`), text);
  });

  it('replaces the link: the old one stops at once, the new one works', async () => {
    const invoice = await issuedInvoice(api);
    const oldPath = pagePath(invoice.hostedInvoiceUrl);
    assert.equal((await fetchPage(server.url, oldPath)).status, 200);
    const replaced = await api.post(`/v1/invoices/${invoice.id}/hosted-link`);
    assert.equal(replaced.status, 200, replaced.text);
    assert.notEqual(replaced.body.hostedInvoiceUrl, invoice.hostedInvoiceUrl);
    assert.equal(replaced.body.id, invoice.id);
    assert.equal((await fetchPage(server.url, oldPath)).status, 404);
    assert.equal((await fetchPage(server.url, `${oldPath}/pdf`)).status, 404);
    const newPath = pagePath(replaced.body.hostedInvoiceUrl);
    assert.equal((await fetchPage(server.url, newPath)).status, 200);
    assert.equal(
      (await api.get(`/v1/invoices/${invoice.id}`)).body.hostedInvoiceUrl,
      replaced.body.hostedInvoiceUrl,
    );
  });

  it('refuses a link for a draft, and for an invoice of another tenant', async () => {
    const customer = await customerIn(api, 'en');
    const draft = await createInvoice(api, { customerId: customer.id });
    assertError(await api.post(`/v1/invoices/${draft.id}/hosted-link`), 409, 'state_invalid');
    const invoice = await issuedInvoice(api);
    const stranger = await tenantApi(server);
    assertError(
      await stranger.api.post(`/v1/invoices/${invoice.id}/hosted-link`),
      404,
      'resource_missing',
    );
    const reader = await tenantApi(server, { scopes: ['invoices:read'] });
    const refused = await reader.api.post(`/v1/invoices/${invoice.id}/hosted-link`);
    assertError(refused, 403, 'scope_insufficient');
  });

  it('stops working once expired, and the API no longer shows it', async () => {
    const invoice = await issuedInvoice(api);
    const path = pagePath(invoice.hostedInvoiceUrl);
    await server.db.query(
      `UPDATE hosted_invoice_links SET expires_at = clock_timestamp() - interval '1 second'
        WHERE tenant_id = $1 AND invoice_id = $2`,
      [key.tenantId, invoice.id],
    );
    assert.equal((await fetchPage(server.url, path)).status, 404);
    assert.equal((await api.get(`/v1/invoices/${invoice.id}`)).body.hostedInvoiceUrl, null);
    // A new link works again, for at least 120 days from now.
    const replaced = await api.post(`/v1/invoices/${invoice.id}/hosted-link`);
    assert.equal(
      (await fetchPage(server.url, pagePath(replaced.body.hostedInvoiceUrl))).status,
      200,
    );
  });

  it('sets the expiry 120 days after the due date, at issue', async () => {
    const due = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    const invoice = await issuedInvoice(api, { dueDate: due });
    const { rows } = await server.db.query(
      'SELECT expires_at FROM hosted_invoice_links WHERE tenant_id = $1 AND invoice_id = $2',
      [key.tenantId, invoice.id],
    );
    const expected = new Date(Date.parse(`${due}T00:00:00Z`) + 121 * 86_400_000);
    assert.equal(rows[0].expires_at.toISOString(), expected.toISOString());
  });
});

describe('the expiry rule', () => {
  const madeAt = new Date('2026-03-01T10:00:00Z');
  it('ends with the 120th day after the due date', () => {
    assert.equal(
      linkExpiry('2026-04-01', '2026-03-01T10:00:00Z', madeAt).toISOString(),
      '2026-07-31T00:00:00.000Z',
    );
  });
  it('counts from the issue date when there is no due date', () => {
    assert.equal(
      linkExpiry(null, '2026-03-01T10:00:00Z', madeAt).toISOString(),
      '2026-06-30T00:00:00.000Z',
    );
  });
  it('gives a link made after the due date 120 days from when it was made', () => {
    assert.equal(
      linkExpiry('2025-01-15', '2024-12-15T10:00:00Z', madeAt).toISOString(),
      '2026-06-30T00:00:00.000Z',
    );
  });
});

describe('the public URL', () => {
  it('is PUBLIC_URL when set, with a path prefix kept', async () => {
    const other = await server.start({ publicUrl: 'https://billing.example.test/acme' });
    const invoice = await issuedInvoice(client(other.url, key.secret));
    assert.match(
      invoice.hostedInvoiceUrl,
      /^https:\/\/billing\.example\.test\/acme\/i\/[A-Za-z0-9_-]{32}$/,
    );
    // A proxy at that address strips /acme: either instance opens the link (it lives in the
    // database), and the page's own links are relative, so they keep the prefix.
    const token = invoice.hostedInvoiceUrl.split('/').pop()!;
    for (const base of [server.url, other.url]) {
      const res = await fetchPage(base, `/i/${token}`);
      assert.equal(res.status, 200);
      assert.ok(res.text.includes(`href="${token}/pdf"`));
      assert.ok(res.text.includes('href="assets/page.css?v='));
    }
  });

  it('defaults to the address the server listens on', () => {
    const config = { host: '127.0.0.1', port: 3000, tlsCertFile: undefined };
    assert.equal(listeningUrl(config), 'http://127.0.0.1:3000');
    assert.equal(listeningUrl({ ...config, host: '0.0.0.0' }, 8080), 'http://localhost:8080');
    assert.equal(listeningUrl({ ...config, host: '::1', tlsCertFile: 'x' }), 'https://[::1]:3000');
  });

  it('refuses a PUBLIC_URL that is not a plain http(s) base', () => {
    for (const value of ['ftp://example.com', 'https://example.com/?a=1', 'not a url']) {
      assert.throws(
        () => loadConfig({ PUBLIC_URL: value }),
        (error: unknown) =>
          error instanceof ConfigError && error.problems.some((p) => p.includes('PUBLIC_URL')),
      );
    }
    assert.equal(
      loadConfig({ PUBLIC_URL: 'https://example.com/' }).publicUrl,
      'https://example.com',
    );
  });
});

describe('a new secrets key', () => {
  it('reseals the tokens at start while the old key is still held: the same links, shown again', async () => {
    // A database of its own: resealing reaches every link in it.
    const first = await startInvoiceApp({ hostedPageRateLimit: 1_000_000 });
    const { api: before, key: owner } = await tenantApi(first);
    const invoice = await issuedInvoice(before);
    const newKey = randomBytes(32);
    const rotated = await first.start({
      secretsKey: newKey.toString('base64'),
      secretsKeyPrevious: process.env.SECRETS_KEY,
    });
    const newKeyId = createHash('sha256').update(newKey).digest('base64url').slice(0, 8);
    const { rows } = await first.db.query<{ token_sealed: string }>(
      'SELECT token_sealed FROM hosted_invoice_links',
    );
    assert.ok(rows.length > 0 && rows.every((r) => r.token_sealed.startsWith(`v1.${newKeyId}.`)));
    const shown = await client(rotated.url, owner.secret).get(`/v1/invoices/${invoice.id}`);
    const path = pagePath(invoice.hostedInvoiceUrl);
    assert.equal(pagePath(shown.body.hostedInvoiceUrl), path);
    assert.equal((await fetchPage(rotated.url, path)).status, 200);
  });
});
