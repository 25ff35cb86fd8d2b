// Model steps on invoices, credit notes and payments: create, add lines, the state machine's
// actions, and credit notes and payments with their effect on what the invoice owes.
import assert from 'node:assert/strict';
import {
  MOVES,
  Step,
  assertMoney,
  call,
  chooseTarget,
  expectError,
  pickId,
  type Actor,
  type Model,
  type Status,
  type Target,
  type World,
} from './model.ts';

export interface LineInput {
  quantity: number;
  unitAmount: number;
}
const amountOf = (lines: LineInput[]) =>
  lines.reduce((s, l) => s + BigInt(l.quantity) * BigInt(l.unitAmount), 0n);
const lineBody = (l: LineInput, i: number) => ({
  description: `Line ${i}`,
  quantity: l.quantity,
  unitAmount: l.unitAmount,
});

export class CreateInvoice extends Step {
  readonly pick: Target;
  readonly lines: LineInput[];
  constructor(actor: number, pick: Target, lines: LineInput[]) {
    super(actor);
    this.pick = pick;
    this.lines = lines;
  }
  async act(model: Model, world: World, actor: Actor) {
    const customerId = pickId(model, this.pick, actor, 'cus_');
    const reply = await call(world, actor, 'POST', '/v1/invoices', {
      customerId,
      currency: 'eur',
      lines: this.lines.map(lineBody),
    });
    if (!actor.canWrite) return expectError(reply, 403, 'scope_insufficient', 'read-only invoice');
    // A line whose amount is out of range is refused with the body, before any look-up; the
    // sum of the lines is judged with the customer's tax status, after the customer is found.
    const total = amountOf(this.lines);
    if (this.lines.some((l) => !Number.isSafeInteger(l.quantity * l.unitAmount)))
      return expectError(reply, 400, 'parameter_invalid', `a line beyond the safe range`);
    const customer = model.customers.get(customerId);
    if (!customer || customer.owner !== actor.owner)
      return expectError(reply, 404, 'resource_missing', `invoice for ${customerId}`);
    if (total < 0n || total > BigInt(Number.MAX_SAFE_INTEGER))
      return expectError(reply, 400, 'parameter_invalid', `lines adding up to ${total}`);
    assert.equal(reply.status, 201, reply.text);
    assert.equal(reply.body.status, 'draft');
    assert.equal(BigInt(reply.body.total), total);
    assertMoney(reply.body, 'created invoice');
    model.invoices.set(reply.body.id, { owner: actor.owner, status: 'draft', body: reply.body });
    model.ids.push(reply.body.id);
  }
  override toString() {
    return `CreateInvoice(${this.actor}, ${JSON.stringify(this.pick)}, ${JSON.stringify(this.lines)})`;
  }
}

export class InvoiceAction extends Step {
  readonly pick: Target;
  readonly action: string;
  constructor(actor: number, pick: Target, action: string) {
    super(actor);
    this.pick = pick;
    this.action = action;
  }
  async act(model: Model, world: World, chosen: Actor) {
    const { id, actor } = chooseTarget(world, model, chosen, this.pick, 'inv_', (i) =>
      this.action === 'delete' ? i.status === 'draft' : !!MOVES[this.action]![i.status!],
    );
    const delet = this.action === 'delete';
    const reply = delet
      ? await call(world, actor, 'DELETE', `/v1/invoices/${id}`)
      : await call(world, actor, 'POST', `/v1/invoices/${id}/${this.action}`);
    if (!actor.canWrite) return expectError(reply, 403, 'scope_insufficient', 'read-only action');
    const known = model.invoices.get(id);
    if (!known || known.owner !== actor.owner || known.status === 'deleted') {
      return expectError(reply, 404, 'resource_missing', `${this.action} ${id}`);
    }
    const before = known.status;
    let after: Status | undefined = delet
      ? before === 'draft'
        ? 'deleted'
        : undefined
      : MOVES[this.action]![before];
    if (after === undefined)
      return expectError(reply, 409, 'state_invalid', `${this.action} on ${before}`);
    assert.equal(reply.status, 200, reply.text);
    if (delet) {
      assert.deepEqual(reply.body, { id, object: 'invoice', deleted: true });
    } else {
      if (this.action === 'issue' && known.body.total === 0) after = 'paid';
      assert.equal(reply.body.status, after, `${this.action}: ${before} → ${after}`);
      assertMoney(reply.body, `${this.action} ${id}`);
      if (this.action === 'pay') {
        // Paying is a payment of the whole remainder, method other.
        const payment = reply.body.payments.at(-1);
        assert.equal(payment.amount, known.body.amountRemaining);
        assert.equal(payment.method, 'other');
        model.payments.set(payment.id, { owner: actor.owner, body: payment });
        model.ids.push(payment.id);
      }
      known.body = reply.body;
    }
    known.status = after;
  }
  override toString() {
    return `InvoiceAction(${this.actor}, ${JSON.stringify(this.pick)}, ${this.action})`;
  }
}

export class AddLine extends Step {
  readonly pick: Target;
  readonly line: LineInput;
  constructor(actor: number, pick: Target, line: LineInput) {
    super(actor);
    this.pick = pick;
    this.line = line;
  }
  async act(model: Model, world: World, actor: Actor) {
    const id = pickId(model, this.pick, actor, 'inv_');
    const reply = await call(
      world,
      actor,
      'POST',
      `/v1/invoices/${id}/lines`,
      lineBody(this.line, 99),
    );
    if (!actor.canWrite) return expectError(reply, 403, 'scope_insufficient', 'read-only line');
    const known = model.invoices.get(id);
    if (!known || known.owner !== actor.owner || known.status === 'deleted')
      return expectError(reply, 404, 'resource_missing', `line on ${id}`);
    if (known.status !== 'draft')
      return expectError(reply, 409, 'state_invalid', `line on ${known.status}`);
    const total = BigInt(known.body.subtotal) + amountOf([this.line]);
    if (
      total < 0n ||
      total > BigInt(Number.MAX_SAFE_INTEGER) ||
      !Number.isSafeInteger(this.line.quantity * this.line.unitAmount)
    ) {
      return expectError(reply, 400, 'parameter_invalid', `a line bringing the total to ${total}`);
    }
    assert.equal(reply.status, 200, reply.text);
    assert.equal(BigInt(reply.body.subtotal), total);
    assertMoney(reply.body, `line on ${id}`);
    known.body = reply.body;
  }
  override toString() {
    return `AddLine(${this.actor}, ${JSON.stringify(this.pick)}, ${JSON.stringify(this.line)})`;
  }
}

/** The invoice as the API shows it now (credit notes change it from the side). */
async function refreshInvoice(world: World, model: Model, actor: Actor, id: string) {
  const reply = await call(world, actor, 'GET', `/v1/invoices/${id}`);
  assert.equal(reply.status, 200, reply.text);
  assertMoney(reply.body, `invoice ${id}`);
  const invoice = model.invoices.get(id)!;
  invoice.body = reply.body;
  invoice.status = reply.body.status;
  return reply.body;
}

export class CreateCreditNote extends Step {
  readonly pick: Target;
  /** Per mille of what can still be credited; `over`: one minor unit more than that. */
  readonly share: number;
  readonly over: boolean;
  constructor(actor: number, pick: Target, share: number, over: boolean) {
    super(actor);
    this.pick = pick;
    this.share = share;
    this.over = over;
  }
  async act(model: Model, world: World, chosen: Actor) {
    const { id, actor } = chooseTarget(
      world,
      model,
      chosen,
      this.pick,
      'inv_',
      (i) => ['open', 'paid'].includes(i.status!),
      true,
    );
    const invoice = model.invoices.get(id);
    const before = invoice?.body;
    // The invoice's credit notes that are not void never exceed its total (API.md).
    const available = before ? before.total - before.amountCredited - before.outOfBandAmount : 0;
    const amount = this.over
      ? available + 1
      : Math.max(1, Math.ceil((available * this.share) / 1000));
    const reply = await call(world, actor, 'POST', '/v1/credit-notes', {
      invoiceId: id,
      amount,
      reason: 'order_change',
    });
    if (!actor.canWrite) return expectError(reply, 403, 'scope_insufficient', 'read-only credit');
    if (!invoice || invoice.owner !== actor.owner || invoice.status === 'deleted') {
      return expectError(reply, 404, 'resource_missing', `credit on ${id}`);
    }
    if (!['open', 'paid'].includes(invoice.status)) {
      return expectError(reply, 409, 'state_invalid', `credit on ${invoice.status}`);
    }
    if (amount > available) {
      return expectError(reply, 400, 'parameter_invalid', `credit ${amount} of ${available}`);
    }
    assert.equal(reply.status, 201, reply.text);
    assert.equal(reply.body.amount, amount);
    assert.equal(reply.body.total, amount);
    const after = await refreshInvoice(world, model, actor, id);
    if (before.status === 'open') {
      // On an open invoice a credit lowers what is owed, paid when nothing is left; what goes
      // beyond that (after partial payments) is refunded outside the API.
      const owed = Math.min(amount, before.amountRemaining);
      assert.equal(after.amountCredited, before.amountCredited + owed, 'amountCredited');
      assert.equal(after.outOfBandAmount, before.outOfBandAmount + amount - owed, 'outOfBand');
      assert.equal(after.status, before.amountRemaining === owed ? 'paid' : 'open');
    } else {
      // On a paid one it records a refund outside the API.
      assert.equal(after.outOfBandAmount, before.outOfBandAmount + amount, 'outOfBandAmount');
      assert.equal(after.status, 'paid');
    }
    model.creditNotes.set(reply.body.id, { owner: actor.owner, body: reply.body });
    model.ids.push(reply.body.id);
  }
  override toString() {
    return `CreateCreditNote(${this.actor}, ${JSON.stringify(this.pick)}, ${this.share}, ${this.over})`;
  }
}

export class VoidCreditNote extends Step {
  readonly pick: Target;
  constructor(actor: number, pick: Target) {
    super(actor);
    this.pick = pick;
  }
  async act(model: Model, world: World, chosen: Actor) {
    const { id, actor } = chooseTarget(
      world,
      model,
      chosen,
      this.pick,
      'cn_',
      (n) => n.body.status === 'issued',
    );
    const reply = await call(world, actor, 'POST', `/v1/credit-notes/${id}/void`);
    if (!actor.canWrite) return expectError(reply, 403, 'scope_insufficient', 'read-only void');
    const note = model.creditNotes.get(id);
    if (!note || note.owner !== actor.owner)
      return expectError(reply, 404, 'resource_missing', `void ${id}`);
    const invoice = model.invoices.get(note.body.invoiceId)!;
    if (note.body.status === 'void' || invoice.status === 'void') {
      return expectError(reply, 409, 'state_invalid', `void of a note on ${invoice.status}`);
    }
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.status, 'void');
    const before = invoice.body;
    const after = await refreshInvoice(world, model, actor, note.body.invoiceId);
    // The invoice gets back exactly what the note took.
    assert.equal(after.amountCredited, before.amountCredited - note.body.creditedAmount);
    assert.equal(after.outOfBandAmount, before.outOfBandAmount - note.body.outOfBandAmount);
    if (before.status === 'paid' && before.amountPaid === 0 && note.body.creditedAmount > 0) {
      assert.equal(after.status, 'open', 'an invoice the note had paid is open again');
    }
    note.body = reply.body;
  }
  override toString() {
    return `VoidCreditNote(${this.actor}, ${JSON.stringify(this.pick)})`;
  }
}

export class CreatePayment extends Step {
  readonly pick: Target;
  /** Per mille of what the invoice still owes; `over`: one minor unit more than that. */
  readonly share: number;
  readonly over: boolean;
  readonly method: string;
  constructor(actor: number, pick: Target, share: number, over: boolean, method: string) {
    super(actor);
    this.pick = pick;
    this.share = share;
    this.over = over;
    this.method = method;
  }
  async act(model: Model, world: World, chosen: Actor) {
    const { id, actor } = chooseTarget(
      world,
      model,
      chosen,
      this.pick,
      'inv_',
      (i) => ['open', 'uncollectible'].includes(i.status!),
      true,
    );
    const invoice = model.invoices.get(id);
    const before = invoice?.body;
    const owed = before ? before.amountRemaining : 0;
    const amount = this.over ? owed + 1 : Math.max(1, Math.ceil((owed * this.share) / 1000));
    const reply = await call(world, actor, 'POST', `/v1/invoices/${id}/payments`, {
      amount,
      method: this.method,
      reference: `ref ${this.share}`,
    });
    if (!actor.canWrite) return expectError(reply, 403, 'scope_insufficient', 'read-only payment');
    if (!invoice || invoice.owner !== actor.owner || invoice.status === 'deleted') {
      return expectError(reply, 404, 'resource_missing', `payment on ${id}`);
    }
    if (!['open', 'uncollectible'].includes(invoice.status)) {
      return expectError(reply, 409, 'state_invalid', `payment on ${invoice.status}`);
    }
    if (amount > owed)
      return expectError(reply, 400, 'parameter_invalid', `pay ${amount} of ${owed}`);
    assert.equal(reply.status, 201, reply.text);
    assert.equal(reply.body.amount, amount);
    assert.equal(reply.body.invoiceId, id);
    assert.equal(reply.body.status, 'succeeded');
    const after = await refreshInvoice(world, model, actor, id);
    // Partial payments add up; the one that leaves nothing to pay makes the invoice paid.
    assert.equal(after.amountPaid, before.amountPaid + amount, 'amountPaid');
    assert.equal(after.status, amount === owed ? 'paid' : before.status);
    // The answer tells the invoice's state after the payment; the payment is the rest of it.
    const { invoice: state, ...payment } = reply.body;
    assert.deepEqual(state, { id, status: after.status, amountRemaining: after.amountRemaining });
    assert.deepEqual(after.payments.at(-1), payment);
    model.payments.set(reply.body.id, { owner: actor.owner, body: payment });
    model.ids.push(reply.body.id);
    world.tally.add('paymentsRecorded');
  }
  override toString() {
    return `CreatePayment(${this.actor}, ${JSON.stringify(this.pick)}, ${this.share}, ${this.over}, ${this.method})`;
  }
}

export class VoidPayment extends Step {
  readonly pick: Target;
  constructor(actor: number, pick: Target) {
    super(actor);
    this.pick = pick;
  }
  async act(model: Model, world: World, chosen: Actor) {
    const { id, actor } = chooseTarget(
      world,
      model,
      chosen,
      this.pick,
      'pay_',
      (p) => p.body.status === 'succeeded',
    );
    const reply = await call(world, actor, 'POST', `/v1/payments/${id}/void`);
    if (!actor.canWrite) return expectError(reply, 403, 'scope_insufficient', 'read-only void');
    const payment = model.payments.get(id);
    if (!payment || payment.owner !== actor.owner)
      return expectError(reply, 404, 'resource_missing', `void ${id}`);
    const invoice = model.invoices.get(payment.body.invoiceId)!;
    if (payment.body.status === 'void' || invoice.status === 'void') {
      return expectError(reply, 409, 'state_invalid', `void of a payment on ${invoice.status}`);
    }
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.status, 'void');
    const before = invoice.body;
    const after = await refreshInvoice(world, model, actor, payment.body.invoiceId);
    // The invoice's amountPaid drops by it; a paid invoice owes it again.
    assert.equal(after.amountPaid, before.amountPaid - payment.body.amount);
    assert.equal(after.status, before.status === 'paid' ? 'open' : before.status);
    payment.body = reply.body;
    world.tally.add('paymentsVoided');
  }
  override toString() {
    return `VoidPayment(${this.actor}, ${JSON.stringify(this.pick)})`;
  }
}
