// Model steps on customers, events and refused input: create, read, update and list
// customers, list events, and random bodies that must be refused.
import assert from 'node:assert/strict';
import {
  Step,
  call,
  expectError,
  known,
  listAll,
  pickId,
  type Actor,
  type Model,
  type Target,
  type World,
} from './model.ts';

export class CreateCustomer extends Step {
  readonly body: Record<string, unknown>;
  readonly valid: boolean;
  constructor(actor: number, body: Record<string, unknown>, valid: boolean) {
    super(actor);
    this.body = body;
    this.valid = valid;
  }
  async act(model: Model, world: World, actor: Actor) {
    const reply = await call(world, actor, 'POST', '/v1/customers', this.body);
    if (!actor.canWrite) return expectError(reply, 403, 'scope_insufficient', 'read-only create');
    if (!this.valid) return assert.equal(reply.status, 400, reply.text);
    assert.equal(reply.status, 201, reply.text);
    for (const [k, v] of Object.entries(this.body))
      assert.deepEqual(reply.body[k], v, `created ${k}`);
    model.customers.set(reply.body.id, { owner: actor.owner, body: reply.body });
    model.ids.push(reply.body.id);
  }
  override toString() {
    return `CreateCustomer(${this.actor}, ${JSON.stringify(this.body)})`;
  }
}

export class ReadObject extends Step {
  readonly pick: Target;
  constructor(actor: number, pick: Target) {
    super(actor);
    this.pick = pick;
  }
  async act(model: Model, world: World, actor: Actor) {
    const id = pickId(model, this.pick, actor, '');
    const kind = id.startsWith('inv_')
      ? 'invoices'
      : id.startsWith('cn_')
        ? 'credit-notes'
        : id.startsWith('pay_')
          ? 'payments'
          : 'customers';
    const reply = await call(world, actor, 'GET', `/v1/${kind}/${id}`);
    const object = known(model, id);
    const visible = object && object.owner === actor.owner && object.status !== 'deleted';
    if (!visible)
      return expectError(
        reply,
        404,
        'resource_missing',
        `${actor.name} reads ${id} of ${object?.owner}`,
      );
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.body, object.body, `${id} equals the model`);
  }
  override toString() {
    return `ReadObject(${this.actor}, ${JSON.stringify(this.pick)})`;
  }
}

export class UpdateCustomer extends Step {
  readonly pick: Target;
  readonly patch: Record<string, unknown>;
  constructor(actor: number, pick: Target, patch: Record<string, unknown>) {
    super(actor);
    this.pick = pick;
    this.patch = patch;
  }
  async act(model: Model, world: World, actor: Actor) {
    const id = pickId(model, this.pick, actor, 'cus_');
    const reply = await call(world, actor, 'PATCH', `/v1/customers/${id}`, this.patch);
    if (!actor.canWrite) return expectError(reply, 403, 'scope_insufficient', 'read-only update');
    const known = model.customers.get(id);
    if (!known || known.owner !== actor.owner)
      return expectError(reply, 404, 'resource_missing', `${actor.name} updates ${id}`);
    assert.equal(reply.status, 200, reply.text);
    const expected = { ...known.body, updatedAt: reply.body.updatedAt };
    for (const [k, v] of Object.entries(this.patch))
      expected[k] = v ?? (k === 'metadata' ? {} : null);
    assert.deepEqual(reply.body, expected, 'PATCH changes exactly the fields it names');
    known.body = reply.body;
    // The customer's invoices: an issued one froze its customer and does not change; a
    // draft's e-invoice readiness is judged on the customer as it is now, so only that may.
    for (const [invoiceId, invoice] of model.invoices) {
      if (invoice.body.customerId !== id || invoice.status === 'deleted') continue;
      const read = await call(world, actor, 'GET', `/v1/invoices/${invoiceId}`);
      assert.equal(read.status, 200, read.text);
      const draft = invoice.status === 'draft';
      const einvoice = read.body.einvoice;
      assert.deepEqual(
        draft ? { ...read.body, einvoice: invoice.body.einvoice } : read.body,
        invoice.body,
        `${invoiceId} changes at most its draft readiness when its customer changes`,
      );
      assert.equal(einvoice.ready, einvoice.missing.length === 0, `${invoiceId} readiness`);
      const sorted = [...einvoice.missing].sort(new Intl.Collator('en', { numeric: true }).compare);
      assert.deepEqual(einvoice.missing, sorted, `${invoiceId} names what is missing in order`);
      invoice.body = read.body;
    }
  }
  override toString() {
    return `UpdateCustomer(${this.actor}, ${JSON.stringify(this.pick)}, ${JSON.stringify(this.patch)})`;
  }
}

export class ListCustomers extends Step {
  async act(model: Model, world: World, actor: Actor) {
    const seen = await listAll(world, actor, '/v1/customers');
    const expected = [...model.customers].filter(([, c]) => c.owner === actor.owner);
    assert.deepEqual(
      seen.map((c) => c.id).sort(),
      expected.map(([id]) => id).sort(),
      `${actor.name} lists exactly its customers`,
    );
    for (const customer of seen) assert.deepEqual(customer, model.customers.get(customer.id)!.body);
  }
  override toString() {
    return `ListCustomers(${this.actor})`;
  }
}

export class ListEvents extends Step {
  async act(model: Model, world: World, actor: Actor) {
    const events = await listAll(world, actor, '/v1/events');
    const own = (id: string) => known(model, id)?.owner === actor.owner;
    for (const event of events)
      assert.ok(
        own(event.data.object.id),
        `${actor.name} sees the event of ${event.data.object.id}`,
      );
    const withEvents = new Set(events.map((e) => e.data.object.id));
    for (const [id, { owner }] of [
      ...model.customers,
      ...model.invoices,
      ...model.creditNotes,
      ...model.payments,
    ]) {
      if (owner === actor.owner) assert.ok(withEvents.has(id), `${id} has its events`);
    }
  }
  override toString() {
    return `ListEvents(${this.actor})`;
  }
}

/** A random body with an unknown field on a random write: refused, and nothing changes. */
export class Junk extends Step {
  readonly pick: Target;
  readonly target: number;
  readonly body: unknown;
  constructor(actor: number, pick: Target, target: number, body: unknown) {
    super(actor);
    this.pick = pick;
    this.target = target;
    this.body = body;
  }
  async act(model: Model, world: World, actor: Actor) {
    const id = pickId(model, this.pick, actor, '');
    const targets: [string, string][] = [
      ['POST', '/v1/customers'],
      ['PATCH', `/v1/customers/${id}`],
      ['POST', '/v1/invoices'],
      ['PATCH', `/v1/invoices/${id}`],
      ['POST', `/v1/invoices/${id}/lines`],
      ['POST', `/v1/invoices/${id}/issue`],
      ['POST', `/v1/invoices/${id}/payments`],
      ['POST', `/v1/payments/${id}/void`],
    ];
    const [method, path] = targets[this.target % targets.length]!;
    const body =
      this.body !== null && typeof this.body === 'object' && !Array.isArray(this.body)
        ? { ...this.body, junkField: 1 }
        : this.body;
    const reply = await call(world, actor, method, path, body);
    assert.ok(
      reply.status >= 400 && reply.status < 500,
      `junk ${method} ${path} ${JSON.stringify(body)}: ${reply.status} ${reply.text}`,
    );
  }
  override toString() {
    return `Junk(${this.actor}, ${JSON.stringify(this.pick)}, ${this.target}, ${JSON.stringify(this.body)})`;
  }
}
