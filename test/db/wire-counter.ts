// A TCP proxy in front of PostgreSQL that counts what the app asks of the database: the
// statements it runs and the round trips it waits for. It reads only the framing of the wire
// protocol (a type byte and a length per message) in both directions and forwards every byte
// unchanged, so the app behaves as it does against the server itself (or PgBouncer).
//
// Counted per connection, after its start-up (the first ReadyForQuery), so a connection the
// pool opens mid-request adds one to `connections` but nothing to the other two:
// - statements: frontend Query ('Q', the simple protocol) and Execute ('E', the extended one);
// - round trips: a batch the client sends without having read an answer in between. `pending`
//   is the Syncs and Queries sent less the ReadyForQuery ('Z') received. The first message
//   sent when nothing is pending, or the first sent after an answer came back (the client read
//   it before sending), starts a round trip; it stays open until `pending` is back at 0 or the
//   next one starts. Messages sent while it is open and nothing came back (the Bind, Execute
//   and Sync after a Parse, or a pipelined query) join it. So two pipelined answers that
//   arrive apart, with the next statement sent between them, still make it a round trip of its
//   own, as when they arrive together: the count does not depend on how the answers were cut
//   into packets. Terminate ('X') expects no answer and is not one.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface WireCounts {
  statements: number;
  roundTrips: number;
  /** Connections made (start-up included) since the counters were last reset. */
  connections: number;
}

export interface WireCounter {
  /** `target` with the proxy's host and port. */
  url: string;
  /** The counts since the last reset, over every connection. */
  totals(): WireCounts;
  /** The counts of each connection open now or closed since the last reset. */
  perConnection(): WireCounts[];
  /**
   * Round trips that began while no connection had one open since the last reset: how many
   * times the app waited for the database, where round trips in parallel on several
   * connections are one wait. Depends on timing (a parallel statement sent after its sibling's
   * answer is a wait of its own), so it informs rather than bounds.
   */
  waits(): number;
  /** The text of each statement since the last reset, in the order sent (whitespace folded). */
  statements(): string[];
  /** Answers the clients still wait for, over every connection (0: the wire is quiet). */
  pending(): number;
  reset(): void;
  close(): Promise<void>;
}

// Start-up packets have no type byte: a length, then a code.
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

const HEADER = 5;
/** How much of a Query's, Parse's or Bind's body is kept to name the statement. */
const KEPT_BYTES = 2048;

/**
 * Splits a stream into messages `type byte + int32 length (itself included) + body`, and hands
 * on each once it has passed whole, with the start of its body when its type is in `keep`.
 */
class Framing {
  private header = Buffer.alloc(HEADER);
  private headerBytes = 0;
  private remaining = 0;
  private kept: Buffer[] = [];
  private keptBytes = 0;
  private keeping = false;
  private readonly keep: ReadonlySet<number>;
  private readonly onMessage: (type: number, head: Buffer) => void;
  constructor(keep: string, onMessage: (type: number, head: Buffer) => void) {
    this.keep = new Set([...keep].map((c) => c.charCodeAt(0)));
    this.onMessage = onMessage;
  }

  push(chunk: Buffer, from = 0): void {
    let at = from;
    while (at < chunk.length) {
      if (this.remaining > 0) {
        const n = Math.min(this.remaining, chunk.length - at);
        if (this.keeping && this.keptBytes < KEPT_BYTES) {
          const part = chunk.subarray(at, at + Math.min(n, KEPT_BYTES - this.keptBytes));
          this.kept.push(Buffer.from(part));
          this.keptBytes += part.length;
        }
        this.remaining -= n;
        at += n;
        if (this.remaining === 0) this.passed();
        continue;
      }
      const n = Math.min(HEADER - this.headerBytes, chunk.length - at);
      chunk.copy(this.header, this.headerBytes, at, at + n);
      this.headerBytes += n;
      at += n;
      if (this.headerBytes < HEADER) return;
      this.headerBytes = 0;
      this.remaining = this.header.readInt32BE(1) - 4;
      this.keeping = this.keep.has(this.header[0]!);
      if (this.remaining === 0) this.passed();
    }
  }

  private passed(): void {
    const head = Buffer.concat(this.kept);
    this.kept = [];
    this.keptBytes = 0;
    this.onMessage(this.header[0]!, head);
  }
}

/**
 * The frontend's start-up packets (SSLRequest, GSSENCRequest, StartupMessage: a length and
 * no type byte) before its typed messages. Returns where in `chunk` the typed messages begin,
 * or -1 while still in start-up.
 */
class StartupReader {
  private buffered = Buffer.alloc(0);
  done = false;
  private readonly onRequest: (code: number) => void;
  constructor(onRequest: (code: number) => void) {
    this.onRequest = onRequest;
  }

  push(chunk: Buffer): number {
    this.buffered = Buffer.concat([this.buffered, chunk]);
    while (!this.done && this.buffered.length >= 8) {
      const length = this.buffered.readInt32BE(0);
      if (this.buffered.length < length) return -1;
      const code = this.buffered.readInt32BE(4);
      this.buffered = this.buffered.subarray(length);
      this.onRequest(code);
      // An SSL or GSS request is answered by one byte, then the client starts over; anything
      // else (the StartupMessage) is followed by typed messages.
      if (code !== SSL_REQUEST && code !== GSSENC_REQUEST) this.done = true;
    }
    if (!this.done) return -1;
    // What followed the StartupMessage in the same chunk (passwords and on): typed messages.
    const rest = chunk.length - this.buffered.length;
    this.buffered = Buffer.alloc(0);
    return rest;
  }
}

/** What the connections tell the counter as it happens. */
interface Listener {
  /** A round trip of a connection begins (true) or ends (false). */
  roundTrip(open: boolean): void;
  /** A statement is sent, with its text. */
  statement(text: string): void;
}

class Connection {
  readonly counts: WireCounts = { statements: 0, roundTrips: 0, connections: 1 };
  pending = 0;
  private readonly listener: Listener;
  constructor(listener: Listener) {
    this.listener = listener;
  }
  private open = false;
  /** An answer (ReadyForQuery) came back since the open round trip began. */
  private answered = false;
  private ready = false;
  /** The server's one-byte answer to an SSL or GSS request is due. */
  private answerByte = false;
  /** TLS was agreed: the rest is opaque and not counted. */
  private opaque = false;
  private readonly startup = new StartupReader((code) => {
    if (code === SSL_REQUEST || code === GSSENC_REQUEST) this.answerByte = true;
  });
  private readonly frontend = new Framing('QPBE', (type, head) => this.sent(type, head));
  private readonly backend = new Framing('', (type) => this.received(type));
  /** The text of each prepared statement ('' the unnamed one) and of each portal, by name. */
  private readonly prepared = new Map<string, string>();
  private readonly portals = new Map<string, string>();

  fromClient(chunk: Buffer): void {
    if (this.opaque) return;
    if (!this.startup.done) {
      const from = this.startup.push(chunk);
      if (from >= 0) this.frontend.push(chunk, from);
      return;
    }
    this.frontend.push(chunk);
  }

  fromServer(chunk: Buffer): void {
    if (this.opaque) return;
    let from = 0;
    if (this.answerByte) {
      this.answerByte = false;
      if (chunk[0] === 0x53 /* S */) {
        this.opaque = true;
        return;
      }
      from = 1;
    }
    this.backend.push(chunk, from);
  }

  private sent(type: number, head: Buffer): void {
    if (!this.ready) return;
    const code = String.fromCharCode(type);
    if (code === 'X') return;
    if (this.open && this.answered) {
      // The client read an answer and sent again while others were still due.
      this.open = false;
      this.listener.roundTrip(false);
    }
    if (!this.open) {
      this.counts.roundTrips++;
      this.open = true;
      this.answered = false;
      this.listener.roundTrip(true);
    }
    const [first = '', second = ''] = head.toString('utf8').split('\0');
    if (code === 'P') this.prepared.set(first, second);
    if (code === 'B') this.portals.set(first, this.prepared.get(second) ?? '?');
    if (code === 'Q' || code === 'E') {
      this.counts.statements++;
      this.listener.statement(code === 'Q' ? first : (this.portals.get(first) ?? '?'));
    }
    if (code === 'Q' || code === 'S' || code === 'F') this.pending++;
  }

  /** The connection is gone: a round trip it had open ends with it. */
  ended(): void {
    if (!this.open) return;
    this.open = false;
    this.listener.roundTrip(false);
  }

  private received(type: number): void {
    if (String.fromCharCode(type) !== 'Z') return;
    if (!this.ready) {
      this.ready = true;
      return;
    }
    this.pending = Math.max(0, this.pending - 1);
    this.answered = true;
    if (this.pending === 0 && this.open) {
      this.open = false;
      this.listener.roundTrip(false);
    }
  }
}

/** Starts a counting proxy on 127.0.0.1 (a free port) in front of `target`'s host and port. */
export async function startWireCounter(target: string): Promise<WireCounter> {
  const upstream = new URL(target);
  const host = upstream.hostname || '127.0.0.1';
  const port = Number(upstream.port || 5432);
  const live = new Set<Connection>();
  let counted: Connection[] = [];
  const sockets = new Set<Socket>();
  // Round trips open now over every connection, and how often that rose from none.
  let opened = 0;
  let waits = 0;
  let statements: string[] = [];
  const listener: Listener = {
    roundTrip: (open) => {
      if (open && opened++ === 0) waits++;
      if (!open) opened--;
    },
    statement: (text) => statements.push(text.replace(/\s+/g, ' ').trim()),
  };

  const server: Server = createServer((client) => {
    const connection = new Connection(listener);
    live.add(connection);
    counted.push(connection);
    const backend = connect(port, host);
    sockets.add(client);
    sockets.add(backend);
    client.on('data', (chunk: Buffer) => {
      connection.fromClient(chunk);
      backend.write(chunk);
    });
    backend.on('data', (chunk: Buffer) => {
      connection.fromServer(chunk);
      client.write(chunk);
    });
    const closed = () => {
      connection.ended();
      live.delete(connection);
      sockets.delete(client);
      sockets.delete(backend);
      client.destroy();
      backend.destroy();
    };
    client.on('close', closed);
    backend.on('close', closed);
    client.on('error', closed);
    backend.on('error', closed);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('proxy has no address');
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(address.port);

  const sum = (connections: Connection[]): WireCounts => {
    const total = { statements: 0, roundTrips: 0, connections: 0 };
    for (const c of connections) {
      total.statements += c.counts.statements;
      total.roundTrips += c.counts.roundTrips;
      total.connections += c.counts.connections;
    }
    return total;
  };

  return {
    url: url.toString(),
    totals: () => sum(counted),
    waits: () => waits,
    statements: () => [...statements],
    perConnection: () => counted.map((c) => ({ ...c.counts })),
    pending: () => [...live].reduce((n, c) => n + c.pending, 0),
    reset: () => {
      for (const c of live)
        Object.assign(c.counts, { statements: 0, roundTrips: 0, connections: 0 });
      counted = [...live];
      waits = 0;
      statements = [];
    },
    close: async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await stopped;
    },
  };
}
