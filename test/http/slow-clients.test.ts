import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { connect as connectTls, TLSSocket } from 'node:tls';
import { generate } from 'selfsigned';
import { loadConfig, ConfigError } from '../../src/config.ts';
import { connectionsCheckingInterval, LINGER_MS } from '../../src/http/connections.ts';
import {
  call,
  createTenantWithKey,
  createTestDatabase,
  sleep,
  startTestServer,
  waitFor,
} from '../helpers.ts';

const url = await createTestDatabase();
// Small timeouts, so that the tests wait seconds rather than the defaults' tens of seconds.
const timeouts = { headersTimeoutMs: 1000, requestTimeoutMs: 1500, keepAliveTimeoutMs: 800 };
const server = await startTestServer(url, timeouts);
const key = await createTenantWithKey(server.db);
const { hostname, port } = new URL(server.url);

interface Outcome {
  /** Everything the server sent. */
  received: string;
  /** Milliseconds from the connection to its close. */
  closedAfterMs: number;
}

/** A plain TCP connection to the port; resolves once connected. */
const plainTo = (to: string | number) => (): Socket => connect(Number(to), hostname);

/**
 * Opens a raw connection, sends `head` at once, then one byte of `drip` every `everyMs`
 * until the server closes the connection (or the drip runs out, then it waits).
 */
function trickle(
  head: string,
  drip: string,
  everyMs: number,
  open: () => Socket = plainTo(port),
): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = open();
    let received = '';
    let timer: NodeJS.Timeout | undefined;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', () => undefined); // a reset after the answer is what is tested
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ received, closedAfterMs: Date.now() - started });
    });
    socket.once(socket instanceof TLSSocket ? 'secureConnect' : 'connect', () => {
      socket.write(head);
      let next = 0;
      timer = setInterval(() => {
        if (next < drip.length && socket.writable) socket.write(drip[next++]!);
      }, everyMs);
    });
    setTimeout(() => reject(new Error('the server never closed the connection')), 20_000).unref();
  });
}

function assertTimedOut(outcome: Outcome, lowMs: number, highMs: number): void {
  assert.ok(
    outcome.closedAfterMs >= lowMs && outcome.closedAfterMs <= highMs,
    `closed after ${outcome.closedAfterMs} ms, expected ${lowMs}–${highMs} ms`,
  );
  const [head = '', body = ''] = outcome.received.split('\r\n\r\n');
  assert.match(head, /^HTTP\/1\.1 408 Request Timeout\r\n/, outcome.received);
  assert.match(head, /\r\nconnection: close/i);
  // The same security headers as every other answer.
  assert.match(head, /\r\nx-content-type-options: nosniff/i);
  assert.match(head, /\r\ncache-control: no-store/i);
  assert.match(head, /\r\ncontent-security-policy: default-src 'none'/i);
  const requestId = /\r\nrequest-id: (\S+)/i.exec(head)?.[1];
  const envelope = JSON.parse(body);
  assert.equal(envelope.error.code, 'request_timeout');
  assert.equal(envelope.error.requestId, requestId);
}

const json = (path: string, secret?: string) =>
  `POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\n` +
  `${secret ? `Authorization: Bearer ${secret}\r\n` : ''}Content-Length: 200\r\n\r\n`;

describe('slow clients', () => {
  it('cuts off a body trickled a byte at a time at the request timeout', async () => {
    const body = JSON.stringify({ name: 'x'.repeat(190) });
    const outcome = await trickle(json('/v1/customers', key.secret), body, 100);
    // 1.5 s timeout, swept every 250 ms.
    assertTimedOut(outcome, 1400, 4000); // the body would take 20 s
    const customers = await call(server.url, 'GET', '/v1/customers', { key: key.secret });
    assert.deepEqual(customers.body.data, [], 'nothing was created');
  });

  it('answers a trickled body without a key at once, and closes the connection', async () => {
    const body = JSON.stringify({ name: 'x'.repeat(190) });
    const outcome = await trickle(json('/v1/customers'), body, 100);
    assert.ok(outcome.closedAfterMs < 1000, `closed after ${outcome.closedAfterMs} ms`);
    const [head = '', answer = ''] = outcome.received.split('\r\n\r\n');
    assert.match(head, /^HTTP\/1\.1 401 Unauthorized\r\n/);
    assert.match(head, /\r\nconnection: close/i);
    assert.equal(JSON.parse(answer).error.code, 'api_key_missing', 'one answer, no 408 after it');
  });

  it('lets a client send the rest of a body refused before it arrived, then closes', async () => {
    // A body over 1 MiB is refused from its Content-Length, before it arrives. The client goes
    // on writing it after the answer, as fetch and most HTTP libraries do before they read it:
    // each write must succeed (a reset would make the client report "write EPIPE" instead of
    // the answer), and the server must shut its side after the answer.
    const length = 3 * 1024 * 1024;
    const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true });
    let received = '';
    let failure: Error | undefined;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', (error) => (failure = error));
    const ended = new Promise<void>((resolve) => socket.once('end', resolve));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    const chunk = 'x'.repeat(64 * 1024);
    socket.write(
      `POST /v1/customers HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${key.secret}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n${chunk}`,
    );
    await ended; // the answer, then the server's side shut
    assert.match(received, /^HTTP\/1\.1 413 Payload Too Large\r\n/, received);
    assert.match(received, /\r\nconnection: close/i);
    assert.equal(JSON.parse(received.split('\r\n\r\n')[1]!).error.code, 'body_too_large');
    for (let sent = chunk.length; sent < length && !failure; sent += chunk.length) {
      await new Promise<void>((resolve) =>
        socket.write(chunk.slice(0, Math.min(chunk.length, length - sent)), () => resolve()),
      );
      // Real time: a reset the server's TCP stack sends, if one comes, arrives before the next
      // write (nothing to wait on: the test checks that none comes).
      await sleep(1);
    }
    socket.end();
    await closed;
    assert.equal(failure, undefined, `the rest of the body met ${String(failure)}`);
  });

  it('closes a connection whose client goes on sending after an early answer', async () => {
    // The client ignores the server's shut side and trickles on: it is cut off by the
    // lingering close (LINGER_MS) or the request timeout, whichever comes first, with no
    // second answer.
    const body = JSON.stringify({ name: 'x'.repeat(190) });
    const halfOpen = () => connect({ port: Number(port), host: hostname, allowHalfOpen: true });
    const outcome = await trickle(json('/v1/customers'), body, 100, halfOpen);
    assert.ok(
      outcome.closedAfterMs < Math.min(LINGER_MS, timeouts.requestTimeoutMs) + 2000,
      `closed after ${outcome.closedAfterMs} ms`,
    );
    const [head = '', answer = ''] = outcome.received.split('\r\n\r\n');
    assert.match(head, /^HTTP\/1\.1 401 Unauthorized\r\n/);
    assert.equal(JSON.parse(answer).error.code, 'api_key_missing', 'one answer, no 408 after it');
  });

  it('cuts off headers trickled a byte at a time at the headers timeout', async () => {
    const outcome = await trickle(
      `GET /v1/auth/whoami HTTP/1.1\r\nHost: ${hostname}\r\n`,
      `X-Slow: ${'a'.repeat(100)}\r\n\r\n`,
      50,
    );
    assertTimedOut(outcome, 900, 3500);
  });

  it('cuts off a connection that sends nothing at all', async () => {
    const outcome = await trickle('', '', 1000);
    assertTimedOut(outcome, 900, 3500);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout, not before', async () => {
    const outcome = await trickle(`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`, '', 1000);
    assert.match(outcome.received, /^HTTP\/1\.1 200 OK\r\n/);
    // Node waits up to a second more (its keepAliveTimeoutBuffer) before it closes.
    assert.ok(
      outcome.closedAfterMs >= 700 && outcome.closedAfterMs <= 3000,
      `closed after ${outcome.closedAfterMs} ms`,
    );
  });

  it('does not count the time a request takes to handle, only the time it takes to arrive', async () => {
    const created = await call(server.url, 'POST', '/v1/customers', {
      key: key.secret,
      body: { name: 'Slow to update' },
    });
    assert.equal(created.status, 201, created.text);
    // A row lock held for longer than the request timeout keeps the update waiting.
    const blocker = await server.db.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT 1 FROM customers WHERE id = $1 FOR UPDATE', [created.body.id]);
      const update = call(server.url, 'PATCH', `/v1/customers/${created.body.id}`, {
        key: key.secret,
        body: { name: 'Updated at last' },
      });
      // Real time, past the request timeout the server's sockets run on (REQUEST_TIMEOUT_MS).
      await sleep(2500);
      await blocker.query('COMMIT');
      const res = await update;
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.name, 'Updated at last');
    } finally {
      blocker.release();
    }
  });

  it('cuts off slow headers over TLS too', async () => {
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keySize: 2048,
      algorithm: 'sha256',
    });
    const dir = await mkdtemp(path.join(tmpdir(), 'billing-slow-tls-'));
    after(() => rm(dir, { recursive: true, force: true }));
    await writeFile(path.join(dir, 'cert.pem'), pems.cert);
    await writeFile(path.join(dir, 'key.pem'), pems.private, { mode: 0o600 });
    const tls = await startTestServer(url, {
      ...timeouts,
      tlsCertFile: path.join(dir, 'cert.pem'),
      tlsKeyFile: path.join(dir, 'key.pem'),
    });
    const outcome = await trickle(
      `GET /v1/auth/whoami HTTP/1.1\r\nHost: ${hostname}\r\n`,
      `X-Slow: ${'a'.repeat(100)}\r\n\r\n`,
      50,
      () =>
        connectTls({
          host: hostname,
          port: Number(new URL(tls.url).port),
          ca: pems.cert,
          servername: 'localhost',
        }),
    );
    assertTimedOut(outcome, 900, 3500);
    assert.match(outcome.received, /\r\nstrict-transport-security: max-age=31536000/i);
  });
});

describe('connection cap', () => {
  it('closes connections beyond MAX_CONNECTIONS without an answer, and takes new ones once others close', async () => {
    const capped = await startTestServer(url, { maxConnections: 3 });
    const cappedPort = new URL(capped.url).port;
    const held: Socket[] = [];
    for (let i = 0; i < 3; i++) {
      const socket = connect(Number(cappedPort), hostname);
      socket.on('error', () => undefined);
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\n`); // and never finishes
      held.push(socket);
    }
    const connections = () =>
      new Promise<number>((resolve, reject) =>
        capped.app.server.getConnections((error, count) =>
          error ? reject(error) : resolve(count),
        ),
      );
    await waitFor(async () => (await connections()) === 3, 'the server to accept all three', 2000);

    const refused = await trickle(
      `GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`,
      '',
      1000,
      plainTo(cappedPort),
    );
    assert.equal(refused.received, '', 'no answer on a connection over the cap');
    assert.ok(refused.closedAfterMs < 1000, `closed after ${refused.closedAfterMs} ms`);

    held.pop()!.destroy();
    await waitFor(async () => (await connections()) === 2, 'the server to see one close', 2000);
    const res = await call(capped.url, 'GET', '/healthz');
    assert.equal(res.status, 200);
    for (const socket of held) socket.destroy();
  });
});

describe('configuration of slow-client limits', () => {
  it('reads the variables, with defaults that cut a slow client off within 30 s', () => {
    const defaults = loadConfig({});
    assert.ok(defaults.requestTimeoutMs + connectionsCheckingInterval(defaults) <= 30_000);
    assert.ok(defaults.headersTimeoutMs <= defaults.requestTimeoutMs);
    const set = loadConfig({
      REQUEST_TIMEOUT_MS: '20000',
      HEADERS_TIMEOUT_MS: '5000',
      KEEP_ALIVE_TIMEOUT_MS: '65000',
      MAX_CONNECTIONS: '500',
    });
    assert.deepEqual(
      [set.requestTimeoutMs, set.headersTimeoutMs, set.keepAliveTimeoutMs, set.maxConnections],
      [20_000, 5000, 65_000, 500],
    );
  });

  it('names each wrong variable', () => {
    assert.throws(
      () =>
        loadConfig({
          REQUEST_TIMEOUT_MS: '5000',
          HEADERS_TIMEOUT_MS: '6000',
          MAX_CONNECTIONS: '0',
          KEEP_ALIVE_TIMEOUT_MS: 'soon',
        }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        const text = error.problems.join('\n');
        for (const name of ['HEADERS_TIMEOUT_MS', 'MAX_CONNECTIONS', 'KEEP_ALIVE_TIMEOUT_MS']) {
          assert.match(text, new RegExp(name));
        }
        return true;
      },
    );
  });
});
