// The load generator, a process of its own (forked by run.ts, driven over IPC) so that it does
// not share an event loop with anything it measures. Each connection is one undici Client that
// sends a request, waits for the whole answer, records its latency under its operation, and
// sends the next: a closed loop of CONNECTIONS clients, as autocannon runs, but every request
// chosen at random (traffic.ts). It keeps its connections and what it learned (cursors, drafts,
// open invoices) from round to round, per API under test.
import * as hdr from 'hdr-histogram-js';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep, setImmediate as yieldToLoop } from 'node:timers/promises';
import { Client, request } from 'undici';
import type { TenantPlan } from './dataset.ts';
import { TrafficState, type Operation, type Scenario } from './traffic.ts';

export type Command =
  | {
      type: 'setup';
      plan: TenantPlan[];
      /**
       * Per API under test: its instances' origins (one, or several on one database) and each
       * planned tenant's two secrets.
       */
      targets: Record<string, { origins: string[]; secrets: string[][] }>;
    }
  | {
      type: 'round';
      target: string;
      scenario: Scenario;
      seconds: number;
      connections: number;
      /** Stop after this many requests instead (bench/instructions.ts). */
      amount?: number;
      /** Spread the connections over the target's first `instances` origins (default 1). */
      instances?: number;
      /**
       * Requests per second over all connections, each connection sending at even intervals
       * (without: each sends as soon as its last answer is in). Two servers compared at the
       * same rate do the same number of requests per wake-up of their event loop: CPU per
       * request is then compared like for like.
       */
      rate?: number;
    }
  /** Does the API offer POST /v1/invoices/{id}/payments? */
  | { type: 'probe'; target: string };

export interface OperationFigures {
  requests: number;
  /** Answers that were not 2xx, and failed connections. */
  errors: number;
  /** Count per status (0: no answer). */
  statuses: Record<string, number>;
  /** The first few error answers, for the report. */
  samples: string[];
  /** Latencies in microseconds, an HDR histogram (compressed, base64). */
  histogram: string;
}

export interface RoundFigures {
  seconds: number;
  /** The generator's own CPU over the round, seconds. */
  cpuSeconds: number;
  operations: Partial<Record<Operation, OperationFigures>>;
  /** Requests drawn that found nothing to act on (no draft left to issue, say). */
  skipped: number;
  /** Rows before the pages the next-page requests read: sum, count, largest. */
  depth: { sum: number; count: number; max: number };
}

export type Reply =
  | { type: 'ready' }
  | { type: 'round'; figures: RoundFigures }
  | { type: 'probe'; payments: boolean };

class Target {
  private readonly clients = new Map<string, Client>();
  readonly origins: string[];
  readonly state: TrafficState;
  constructor(origins: string[], state: TrafficState) {
    this.origins = origins;
    this.state = state;
  }

  get origin(): string {
    return this.origins[0]!;
  }

  /** `count` connections, connection i to instance i mod `instances`; kept between rounds. */
  connections(count: number, instances = 1): Client[] {
    return Array.from({ length: count }, (_, i) => {
      const origin = this.origins[i % instances]!;
      const key = `${i} ${origin}`;
      let client = this.clients.get(key);
      if (!client) {
        client = new Client(origin, { pipelining: 1, keepAliveTimeout: 30_000 });
        this.clients.set(key, client);
      }
      return client;
    });
  }
}

const targets = new Map<string, Target>();

interface Tally {
  requests: number;
  errors: number;
  statuses: Record<string, number>;
  samples: string[];
  histogram: hdr.Histogram;
}

async function round(command: Extract<Command, { type: 'round' }>): Promise<RoundFigures> {
  const target = targets.get(command.target)!;
  const tallies = new Map<Operation, Tally>();
  const tally = (op: Operation): Tally => {
    let t = tallies.get(op);
    if (!t) {
      t = {
        requests: 0,
        errors: 0,
        statuses: {},
        samples: [],
        histogram: hdr.build({ lowestDiscernibleValue: 1, numberOfSignificantValueDigits: 3 }),
      };
      tallies.set(op, t);
    }
    return t;
  };
  const depth = { sum: 0, count: 0, max: 0 };
  let skipped = 0;
  let sent = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + command.seconds * 1000;
  const more = () =>
    command.amount === undefined ? performance.now() < deadline : sent < command.amount;

  await Promise.all(
    target.connections(command.connections, command.instances).map(async (client, index) => {
      // Paced: connection i sends at started + (i / connections + k) × interval, k = 0, 1, …
      const interval = command.rate ? (1000 * command.connections) / command.rate : 0;
      let due = started + (index * interval) / command.connections;
      while (more()) {
        if (interval > 0) {
          const wait = due - performance.now();
          if (wait > 0) await sleep(wait);
          due += interval;
        }
        const next = target.state.next(command.scenario);
        if (next === null) {
          skipped++;
          await yieldToLoop();
          continue;
        }
        sent++;
        const headers: Record<string, string> = { authorization: `Bearer ${next.secret}` };
        if (next.method === 'POST') headers['idempotency-key'] = randomUUID();
        if (next.body !== undefined) headers['content-type'] = 'application/json';
        const sentAt = performance.now();
        let status = 0;
        let parsed: unknown;
        let failure: string | undefined;
        try {
          const answer = await client.request({
            path: next.path,
            method: next.method,
            headers,
            body: next.body,
          });
          status = answer.statusCode;
          if (status < 200 || status >= 300) failure = await answer.body.text();
          else if (next.onSuccess) parsed = await answer.body.json();
          else await answer.body.dump({ limit: 1 << 20 });
        } catch (error) {
          failure = String(error);
        }
        const t = tally(next.op);
        t.histogram.recordValue(Math.max(1, Math.round((performance.now() - sentAt) * 1000)));
        t.requests++;
        t.statuses[status] = (t.statuses[status] ?? 0) + 1;
        if (failure !== undefined) {
          t.errors++;
          if (t.samples.length < 3)
            t.samples.push(`${status} ${next.method} ${next.path}: ${failure.slice(0, 300)}`);
        } else if (next.onSuccess) {
          next.onSuccess(parsed);
        }
        if (next.depth !== undefined) {
          depth.sum += next.depth;
          depth.count++;
          depth.max = Math.max(depth.max, next.depth);
        }
      }
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  const operations: RoundFigures['operations'] = {};
  for (const [op, t] of tallies) {
    operations[op] = {
      requests: t.requests,
      errors: t.errors,
      statuses: t.statuses,
      samples: t.samples,
      histogram: hdr.encodeIntoCompressedBase64(t.histogram),
    };
    t.histogram.destroy();
  }
  return {
    seconds: (performance.now() - started) / 1000,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    operations,
    skipped,
    depth,
  };
}

/** A payment on an invoice that does not exist: 404 route_not_found if there is no such route. */
async function probe(target: Target): Promise<boolean> {
  const secret = target.state.anySecret();
  const answer = await request(`${target.origin}/v1/invoices/inv_no_such_invoice/payments`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${secret}`,
      'content-type': 'application/json',
      'idempotency-key': randomUUID(),
    },
    body: JSON.stringify({ amount: 100, method: 'bank_transfer' }),
  });
  const body = (await answer.body.json().catch(() => ({}))) as { error?: { code?: string } };
  return !(answer.statusCode === 404 && body.error?.code === 'route_not_found');
}

const send = (reply: Reply) => process.send!(reply);

process.on('message', (command: Command) => {
  void (async () => {
    switch (command.type) {
      case 'setup':
        for (const [name, t] of Object.entries(command.targets)) {
          targets.set(name, new Target(t.origins, new TrafficState(command.plan, t.secrets)));
        }
        return send({ type: 'ready' });
      case 'round':
        return send({ type: 'round', figures: await round(command) });
      case 'probe':
        return send({ type: 'probe', payments: await probe(targets.get(command.target)!) });
    }
  })().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
});
// Gone with the parent: never a generator left loading a server nobody measures.
process.on('disconnect', () => process.exit(0));
