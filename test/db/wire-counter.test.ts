// The counting proxy of round-trips.test.ts: what it calls a statement and a round trip, on a
// stand-in server the test drives message by message (so pipelining and overlap are certain,
// not a matter of timing), and on the run's real database through `pg`.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { createPool } from '../../src/db/pool.ts';
import { createTestDatabase, directUrl } from '../helpers.ts';
import { startWireCounter } from './wire-counter.ts';

/** Reads exactly `n` bytes at a time from a socket. */
function reader(socket: Socket) {
  let buffered = Buffer.alloc(0);
  let waiting: { n: number; resolve: (b: Buffer) => void } | undefined;
  const serve = () => {
    if (!waiting || buffered.length < waiting.n) return;
    const { n, resolve } = waiting;
    waiting = undefined;
    const out = buffered.subarray(0, n);
    buffered = buffered.subarray(n);
    resolve(out);
  };
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    serve();
  });
  return {
    read: (n: number) =>
      new Promise<Buffer>((resolve) => {
        waiting = { n, resolve };
        serve();
      }),
  };
}

/** A typed protocol message: type byte, int32 length (itself included), body. */
function message(type: string, body: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

function untyped(code: number, body: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(8);
  head.writeInt32BE(body.length + 8, 0);
  head.writeInt32BE(code, 4);
  return Buffer.concat([head, body]);
}

const query = (sql: string) => message('Q', Buffer.from(`${sql}\0`));
const READY = message('Z', Buffer.from('I'));
const AUTH_OK = message('R', Buffer.alloc(4));

/** A stand-in PostgreSQL: the test reads what the proxy forwards and writes the answers. */
async function standIn(): Promise<{ url: string; next: () => Promise<Socket>; server: Server }> {
  const accepted: Socket[] = [];
  const server = createServer((socket) => {
    accepted.push(socket);
    server.emit('accepted');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const next = async () => {
    while (accepted.length === 0) await once(server, 'accepted');
    return accepted.shift()!;
  };
  return { url: `postgres://app@127.0.0.1:${port}/billing`, next, server };
}

describe('the wire counter', () => {
  it('counts Query and Execute as statements, and a pipelined batch as one round trip', async () => {
    const upstream = await standIn();
    const wire = await startWireCounter(upstream.url);
    after(async () => {
      await wire.close();
      upstream.server.close();
    });
    const { port } = new URL(wire.url);
    const client = connect(Number(port), '127.0.0.1');
    const fromServer = reader(client);
    const server = await upstream.next();
    const fromClient = reader(server);

    // SSLRequest, refused with one untyped byte; then the StartupMessage and its answer.
    const ssl = untyped(80877103);
    client.write(ssl);
    assert.deepEqual(await fromClient.read(ssl.length), ssl);
    server.write('N');
    assert.equal((await fromServer.read(1)).toString(), 'N');
    const startup = untyped(196608, Buffer.from('user\0app\0database\0billing\0\0'));
    client.write(startup);
    await fromClient.read(startup.length);
    server.write(Buffer.concat([AUTH_OK, READY]));
    await fromServer.read(AUTH_OK.length + READY.length);
    assert.deepEqual(wire.totals(), { statements: 0, roundTrips: 0, connections: 1 });

    // Two queries sent at once (pipelined), and a third sent before any answer came back:
    // three statements, one round trip until all three answer.
    const two = Buffer.concat([query('SELECT 1'), query('SELECT 2')]);
    client.write(two);
    await fromClient.read(two.length);
    client.write(query('SELECT 3'));
    await fromClient.read(query('SELECT 3').length);
    assert.equal(wire.pending(), 3);
    server.write(Buffer.concat([READY, READY, READY]));
    await fromServer.read(3 * READY.length);
    assert.equal(wire.pending(), 0);
    assert.deepEqual(wire.totals(), { statements: 3, roundTrips: 1, connections: 1 });

    // Two pipelined, their answers apart, and one sent between them: the client read an
    // answer before sending it, so it is a round trip of its own, as it is when both answers
    // come back together before it is sent.
    wire.reset();
    client.write(two);
    await fromClient.read(two.length);
    server.write(READY);
    await fromServer.read(READY.length);
    assert.equal(wire.pending(), 1);
    client.write(query('SELECT 3'));
    await fromClient.read(query('SELECT 3').length);
    server.write(Buffer.concat([READY, READY]));
    await fromServer.read(2 * READY.length);
    assert.equal(wire.pending(), 0);
    assert.deepEqual(wire.totals(), { statements: 3, roundTrips: 2, connections: 0 });
    assert.equal(wire.waits(), 2);
    wire.reset();
    client.write(two);
    await fromClient.read(two.length);
    server.write(Buffer.concat([READY, READY]));
    await fromServer.read(2 * READY.length);
    client.write(query('SELECT 3'));
    await fromClient.read(query('SELECT 3').length);
    server.write(READY);
    await fromServer.read(READY.length);
    assert.deepEqual(wire.totals(), { statements: 3, roundTrips: 2, connections: 0 });
    wire.reset();

    // The extended protocol, each message in a write of its own, the first split in two:
    // Parse, Bind, Execute and Sync are one statement and one round trip.
    const parse = message('P', Buffer.from('\0SELECT $1\0\0\0'));
    client.write(parse.subarray(0, 3));
    await fromClient.read(3);
    client.write(parse.subarray(3));
    await fromClient.read(parse.length - 3);
    for (const m of [message('B', Buffer.alloc(8)), message('E', Buffer.alloc(5)), message('S')]) {
      client.write(m);
      await fromClient.read(m.length);
    }
    assert.equal(wire.pending(), 1);
    server.write(READY);
    await fromServer.read(READY.length);
    assert.deepEqual(wire.totals(), { statements: 1, roundTrips: 1, connections: 0 });
    assert.deepEqual(wire.statements(), ['SELECT $1']);

    // A second connection whose round trip overlaps the first's: two round trips, one wait.
    wire.reset();
    assert.deepEqual(wire.totals(), { statements: 0, roundTrips: 0, connections: 0 });
    const other = connect(Number(port), '127.0.0.1');
    const fromOtherServer = reader(other);
    const otherServer = await upstream.next();
    const fromOther = reader(otherServer);
    other.write(startup);
    await fromOther.read(startup.length);
    otherServer.write(Buffer.concat([AUTH_OK, READY]));
    await fromOtherServer.read(AUTH_OK.length + READY.length);
    client.write(query('SELECT 4'));
    await fromClient.read(query('SELECT 4').length);
    other.write(query('SELECT 5'));
    await fromOther.read(query('SELECT 5').length);
    server.write(READY);
    otherServer.write(READY);
    await fromServer.read(READY.length);
    await fromOtherServer.read(READY.length);
    assert.deepEqual(wire.totals(), { statements: 2, roundTrips: 2, connections: 1 });
    assert.equal(wire.waits(), 1);
    assert.deepEqual(wire.perConnection(), [
      { statements: 1, roundTrips: 1, connections: 0 },
      { statements: 1, roundTrips: 1, connections: 1 },
    ]);

    // One after the other: two waits. Terminate expects no answer and is no round trip.
    wire.reset();
    client.write(query('SELECT 6'));
    await fromClient.read(query('SELECT 6').length);
    server.write(READY);
    await fromServer.read(READY.length);
    other.write(Buffer.concat([query('SELECT 7'), message('X')]));
    await fromOther.read(query('SELECT 7').length + 5);
    otherServer.write(READY);
    await fromOtherServer.read(READY.length);
    assert.deepEqual(wire.totals(), { statements: 2, roundTrips: 2, connections: 0 });
    assert.equal(wire.waits(), 2);
    client.destroy();
    other.destroy();
  });

  it("counts pg's statements on the run's database", async () => {
    const url = await createTestDatabase();
    const wire = await startWireCounter(url);
    after(() => wire.close());
    // Without startup parameters through PgBouncer, which refuses them (test/helpers.ts testPool).
    const pooler = directUrl(url) !== url;
    const db = createPool(wire.url, 1, { pooler, preparedStatements: !pooler });
    after(() => db.end());
    await db.query('SELECT 1');
    wire.reset();
    // Parameters: the extended protocol, Execute and Sync.
    await db.query('SELECT $1::int AS n', [1]);
    assert.deepEqual(wire.totals(), { statements: 1, roundTrips: 1, connections: 0 });
    // A transaction: BEGIN and COMMIT are statements and round trips of their own.
    const client = await db.connect();
    await client.query('BEGIN');
    await client.query('SELECT $1::int AS n', [2]);
    await client.query('COMMIT');
    client.release();
    assert.deepEqual(wire.totals(), { statements: 4, roundTrips: 4, connections: 0 });
    // Two statements in one simple Query message count as one.
    await db.query('SELECT 1; SELECT 2');
    assert.deepEqual(wire.totals(), { statements: 5, roundTrips: 5, connections: 0 });
    assert.deepEqual(wire.statements(), [
      'SELECT $1::int AS n',
      'BEGIN',
      'SELECT $1::int AS n',
      'COMMIT',
      'SELECT 1; SELECT 2',
    ]);
    assert.equal(wire.pending(), 0);
  });
});
