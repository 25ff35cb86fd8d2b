// The model of the property-based scenario (properties.ts): what each tenant and environment
// owns, the keys that act on it, and the checks every step makes on the real answers. The
// steps themselves are in model-customers.ts and model-invoices.ts.
import assert from 'node:assert/strict';
import type fc from 'fast-check';
import { envelopeProblem } from './envelope.ts';
import type { Tally } from './figures.ts';
import { request, type Reply } from './processes.ts';

export const WRITE_SCOPES = [
  'customers:read',
  'customers:write',
  'invoices:read',
  'invoices:write',
];
export const READ_SCOPES = ['customers:read', 'invoices:read'];

export interface Actor {
  name: string;
  /** Tenant and environment: the owner of what this key creates. */
  owner: string;
  secret: string;
  canWrite: boolean;
}

export type Status = 'draft' | 'open' | 'paid' | 'void' | 'uncollectible' | 'deleted';
export interface Model {
  customers: Map<string, { owner: string; body: any }>;
  invoices: Map<string, { owner: string; status: Status; body: any }>;
  creditNotes: Map<string, { owner: string; body: any }>;
  payments: Map<string, { owner: string; body: any }>;
  /** Every id ever returned, of any owner: the targets operations pick from. */
  ids: string[];
}
/** The model's object with this id, of any kind. */
export function known(
  model: Model,
  id: string,
): { owner: string; status?: Status; body: any } | undefined {
  return (
    model.customers.get(id) ??
    model.invoices.get(id) ??
    model.creditNotes.get(id) ??
    model.payments.get(id)
  );
}

export interface World {
  url: string;
  actors: Actor[];
  tally: Tally;
}

// The transitions of the contract (API.md, Invoices), written out here independently of the
// service's own table: action → status before → status after.
export const MOVES: Record<string, Partial<Record<Status, Status>>> = {
  issue: { draft: 'open' },
  pay: { open: 'paid', uncollectible: 'paid' },
  void: { open: 'void', uncollectible: 'void' },
  'mark-uncollectible': { open: 'uncollectible' },
};

export const MISSING_ID = 'cus_0000000000000000000000';

export async function call(
  world: World,
  actor: Actor,
  method: string,
  path: string,
  body?: unknown,
): Promise<Reply> {
  const reply = await request(world.url, method, path, { key: actor.secret, body });
  world.tally.add('requests');
  if (method !== 'GET') world.tally.add(reply.status < 300 ? 'writesAccepted' : 'writesRefused');
  const problem = envelopeProblem(reply);
  assert.equal(problem, null, `${actor.name} ${method} ${path}: ${problem}`);
  assert.ok(reply.status < 500, `${actor.name} ${method} ${path}: ${reply.status} ${reply.text}`);
  return reply;
}

export function expectError(reply: Reply, status: number, code: string, what: string) {
  assert.equal(reply.status, status, `${what}: ${reply.text}`);
  assert.equal(reply.body.error.code, code, `${what}: ${reply.text}`);
}

/** Every page of a list. */
export async function listAll(world: World, actor: Actor, path: string): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const page: Reply = await call(
      world,
      actor,
      'GET',
      `${path}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    assert.equal(page.status, 200, page.text);
    items.push(...page.body.data);
    cursor = page.body.nextCursor;
  } while (cursor);
  return items;
}

export function assertMoney(invoice: any, what: string) {
  for (const field of [
    'subtotal',
    'total',
    'tax',
    'amountPaid',
    'amountCredited',
    'outOfBandAmount',
    'amountRemaining',
  ]) {
    assert.ok(
      Number.isSafeInteger(invoice[field]) && invoice[field] >= 0,
      `${what}: ${field} = ${invoice[field]}`,
    );
  }
  assert.ok(
    invoice.amountCredited + invoice.outOfBandAmount <= invoice.total,
    `${what}: credited beyond the total`,
  );
  assert.equal(
    invoice.amountRemaining,
    invoice.total - invoice.amountPaid - invoice.amountCredited,
    `${what}: amountRemaining`,
  );
  const sum = invoice.lines.reduce(
    (s: bigint, l: any) => s + BigInt(l.quantity) * BigInt(l.unitAmount),
    0n,
  );
  assert.equal(BigInt(invoice.subtotal), sum, `${what}: subtotal = Σ quantity × unitAmount`);
  if (invoice.status === 'paid')
    assert.equal(invoice.amountRemaining, 0, `${what}: paid with a remainder`);
  // The payments it lists that are not void are what it says was paid.
  const paid = invoice.payments
    .filter((p: any) => p.status === 'succeeded')
    .reduce((s: number, p: any) => s + p.amount, 0);
  assert.equal(invoice.amountPaid, paid, `${what}: amountPaid = Σ payments`);
  assert.equal(invoice.paidAt !== null, invoice.status === 'paid', `${what}: paidAt`);
}

/** The invariants after every step, seen through the actor's own lists. */
export async function checkOwnView(world: World, model: Model, actor: Actor) {
  const payments = await listAll(world, actor, '/v1/payments');
  const ownPayments = [...model.payments].filter(([, p]) => p.owner === actor.owner);
  assert.deepEqual(
    payments.map((p) => p.id).sort(),
    ownPayments.map(([id]) => id).sort(),
    `${actor.name} sees exactly its payments`,
  );
  for (const payment of payments) {
    assert.deepEqual(
      payment,
      model.payments.get(payment.id)!.body,
      `${payment.id} equals the model`,
    );
  }
  const invoices = await listAll(world, actor, '/v1/invoices');
  const expected = [...model.invoices].filter(
    ([, i]) => i.owner === actor.owner && i.status !== 'deleted',
  );
  assert.deepEqual(
    invoices.map((i) => i.id).sort(),
    expected.map(([id]) => id).sort(),
    `${actor.name} sees exactly its invoices`,
  );
  for (const invoice of invoices) {
    assertMoney(invoice, `${actor.name} ${invoice.id}`);
    assert.deepEqual(
      invoice,
      model.invoices.get(invoice.id)!.body,
      `${actor.name} ${invoice.id} equals the model`,
    );
  }
}

export interface Target {
  index: number;
  /** Mostly the actor's own objects of the right kind; otherwise anyone's, or a missing id. */
  own: boolean;
}

/**
 * Half the time (when there is one) an object on which the operation is allowed, acted on by
 * its owner, so that workflows go on and every status is reached; otherwise the chosen key
 * and any id.
 */
export function chooseTarget(
  world: World,
  model: Model,
  chosen: Actor,
  target: Target,
  prefix: 'inv_' | 'cn_' | 'pay_',
  allowed: (object: { status?: Status; body: any }) => boolean,
  /** Prefer allowed objects whenever the target is `own`, not just half the time. */
  eager = false,
): { id: string; actor: Actor } {
  const objects =
    prefix === 'inv_' ? model.invoices : prefix === 'cn_' ? model.creditNotes : model.payments;
  const candidates = [...objects].filter(([, o]) => allowed(o));
  if (!target.own || (!eager && target.index % 2 !== 0) || candidates.length === 0) {
    return { id: pickId(model, target, chosen, prefix), actor: chosen };
  }
  const [id, object] = candidates[target.index % candidates.length]!;
  return { id, actor: world.actors.find((a) => a.owner === object.owner)! };
}

export function pickId(model: Model, target: Target, actor: Actor, prefix: string): string {
  const owner = (id: string) => known(model, id)?.owner;
  const own = model.ids.filter((id) => id.startsWith(prefix) && owner(id) === actor.owner);
  const ids = target.own && own.length > 0 ? own : [...model.ids, MISSING_ID];
  return ids[target.index % ids.length]!;
}

export abstract class Step implements fc.AsyncCommand<Model, World> {
  readonly actor: number;
  constructor(actor: number) {
    this.actor = actor;
  }
  check(): boolean {
    return true;
  }
  abstract act(model: Model, world: World, actor: Actor): Promise<void>;
  async run(model: Model, world: World): Promise<void> {
    world.tally.count();
    const actor = world.actors[this.actor % world.actors.length]!;
    await this.act(model, world, actor);
    await checkOwnView(world, model, actor);
  }
}
