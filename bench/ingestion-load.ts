// The usage-event sender of the ingestion scenario (bench/ingestion.ts), a process of its own
// (forked, driven over IPC) so that building and parsing batches never shares an event loop
// with the API it measures or with the mixed load's generator. Open loop: a batch starts every
// batch/rate seconds whether the earlier ones are answered or not (at most `inFlight` at once;
// a start that finds them all busy is counted as late), so a slow API shows as latency and a
// missed rate, not as a politely lower load.
import * as hdr from 'hdr-histogram-js';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';

export interface IngestionTenant {
  secret: string;
  /** Seeded customer ids are `${prefix}${n padded to 8}` for n in 1..customers. */
  customerPrefix: string;
  customers: number;
}

export interface IngestionCommand {
  origin: string;
  tenants: IngestionTenant[];
  eventName: string;
  seconds: number;
  /** Events per second over all batches. */
  rate: number;
  batch: number;
  /** Share of each batch's events that are ids sent (and answered) before, e.g. 0.01. */
  duplicates: number;
  inFlight: number;
}

export interface IngestionFigures {
  seconds: number;
  batches: number;
  /** Batch starts that found every connection busy (the rate was not kept). */
  late: number;
  sent: { fresh: number; again: number };
  outcomes: { accepted: number; duplicate: number; error: number };
  /** Requests that failed as a whole (not 200, or no answer), with a few samples. */
  failed: number;
  samples: string[];
  /** Latency per batch in microseconds, an HDR histogram (compressed, base64). */
  histogram: string;
  cpuSeconds: number;
}

interface SentEvent {
  id: string;
  eventName: string;
  customerId: string;
  timestamp: string;
  properties: Record<string, unknown>;
}

const random = (n: number) => Math.floor(Math.random() * n);

/**
 * A customer of the tenant, skewed as usage is: n = customers^u for u uniform in [0, 1), so
 * each decade of customer numbers gets the same share (with 100,000 customers, customer 1
 * sends about 6 % of the tenant's events and the first 100 about 40 %): a few big users
 * whose hourly rollup rows every batch of the tenant touches.
 */
function customerOf(tenant: IngestionTenant): string {
  const n = Math.min(tenant.customers, Math.floor(tenant.customers ** Math.random()));
  return `${tenant.customerPrefix}${String(Math.max(1, n)).padStart(8, '0')}`;
}

async function run(command: IngestionCommand): Promise<IngestionFigures> {
  const histogram = hdr.build({ lowestDiscernibleValue: 1, numberOfSignificantValueDigits: 3 });
  // One connection per batch in flight: a batch never queues behind another in the sender.
  const pool = new Pool(command.origin, {
    connections: command.inFlight,
    pipelining: 1,
    keepAliveTimeout: 30_000,
  });
  const figures: Omit<IngestionFigures, 'histogram' | 'seconds' | 'cpuSeconds'> = {
    batches: 0,
    late: 0,
    sent: { fresh: 0, again: 0 },
    outcomes: { accepted: 0, duplicate: 0, error: 0 },
    failed: 0,
    samples: [],
  };
  // Events answered `accepted`, per tenant, to be sent again as duplicates (the newest kept).
  const answered: SentEvent[][] = command.tenants.map(() => []);
  const again = Math.round(command.batch * command.duplicates);
  let busy = 0;
  const sendBatch = async (index: number) => {
    const tenant = command.tenants[index]!;
    const now = Date.now();
    const events: SentEvent[] = [];
    const old = answered[index]!;
    const repeats = old.length >= again ? again : 0;
    for (let i = 0; i < repeats; i++) events.push(old[random(old.length)]!);
    while (events.length < command.batch) {
      events.push({
        id: randomUUID(),
        eventName: command.eventName,
        customerId: customerOf(tenant),
        // Within the last hour, as a client that sends what it collected lately.
        timestamp: new Date(now - random(3_600_000)).toISOString(),
        properties: { units: 1 + random(100), endpoint: '/v1/search' },
      });
    }
    // A repeat may fall twice in one batch: the second is a duplicate of the first anyway.
    figures.sent.again += repeats;
    figures.sent.fresh += events.length - repeats;
    const started = performance.now();
    try {
      const answer = await pool.request({
        path: '/v1/usage-events',
        method: 'POST',
        headers: {
          authorization: `Bearer ${tenant.secret}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ events }),
      });
      const text = await answer.body.text();
      histogram.recordValue(Math.max(1, Math.round((performance.now() - started) * 1000)));
      if (answer.statusCode !== 200) throw new Error(`${answer.statusCode}: ${text.slice(0, 300)}`);
      const { data } = JSON.parse(text) as {
        data: { status: 'accepted' | 'duplicate' | 'error'; error?: { code: string } }[];
      };
      data.forEach((outcome, i) => {
        figures.outcomes[outcome.status]++;
        if (outcome.status === 'accepted') old.push(events[i]!);
        if (outcome.status === 'error' && figures.samples.length < 5)
          figures.samples.push(JSON.stringify(outcome.error));
      });
      if (old.length > 10_000) old.splice(0, old.length - 10_000);
    } catch (error) {
      figures.failed++;
      if (figures.samples.length < 5) figures.samples.push(String(error));
    }
  };

  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const interval = (1000 * command.batch) / command.rate;
  const pending: Promise<void>[] = [];
  for (let k = 0; ; k++) {
    const due = started + k * interval;
    if (due >= started + command.seconds * 1000) break;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    if (busy >= command.inFlight) {
      figures.late++;
      continue;
    }
    busy++;
    figures.batches++;
    // Tenants in turn: each tenant's batches are as frequent as the others'.
    pending.push(sendBatch(k % command.tenants.length).finally(() => busy--));
  }
  await Promise.all(pending);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  await pool.close();
  const encoded = hdr.encodeIntoCompressedBase64(histogram);
  histogram.destroy();
  return {
    ...figures,
    seconds,
    histogram: encoded,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
}

process.on('message', (command: IngestionCommand) => {
  run(command)
    .then((figures) => process.send!(figures))
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
});
// Gone with the parent: never a sender left loading a server nobody measures.
process.on('disconnect', () => process.exit(0));
