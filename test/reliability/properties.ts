// Property-based, model-based scenario (fast-check): random sequences of operations by
// several keys (two tenants, both environments, and a read-only key of the first tenant) run
// against the real server, next to a model of what each tenant and environment owns. After
// every step: no key saw an object of another tenant or environment, everything it saw equals
// the model, the money invariants of every invoice hold (amountRemaining = total − amountPaid
// − amountCredited, no negative amounts, amountPaid = Σ its payments that are not void), and no
// request was answered with a 5xx.
import fc from 'fast-check';
import type { Db } from '../../src/db/pool.ts';
import { createScratchDatabase, tenantKey } from './databases.ts';
import { Tally, type Figures } from './figures.ts';
import { READ_SCOPES, WRITE_SCOPES, type Model, type World } from './model.ts';
import {
  CreateCustomer,
  Junk,
  ListCustomers,
  ListEvents,
  ReadObject,
  UpdateCustomer,
} from './model-customers.ts';
import {
  AddLine,
  CreateCreditNote,
  CreateInvoice,
  CreatePayment,
  InvoiceAction,
  VoidCreditNote,
  VoidPayment,
} from './model-invoices.ts';
import { killChild, request, startChildServer, type ChildServer } from './processes.ts';

const text = fc
  .string({ minLength: 1, maxLength: 30, unit: 'grapheme' })
  .filter((s) => !s.includes('\u0000'));
// `__proto__` and `constructor` keys are refused in every body (body_invalid), by design.
const metadataKey = fc
  .string({ minLength: 1, maxLength: 10 })
  .filter((k) => k !== '__proto__' && k !== 'constructor');
const customerBody = fc.record(
  {
    name: text,
    email: fc.constantFrom('ada@example.com', 'Grace.Hopper@Example.org', 'x@y.co'),
    description: fc.string({ maxLength: 50 }),
    metadata: fc.dictionary(metadataKey, fc.string({ maxLength: 20 }), {
      maxKeys: 3,
      noNullPrototype: true,
    }),
    taxExempt: fc.constantFrom('none', 'exempt', 'reverse'),
  },
  { requiredKeys: [] },
);
const invalidCustomerBody = fc.oneof(
  fc.constant({ name: '' }),
  fc.constant({ email: 'not an e-mail' }),
  fc.record({
    taxExempt: fc
      .string({ maxLength: 8 })
      .filter((s) => !['none', 'exempt', 'reverse'].includes(s)),
  }),
  fc.record({ metadata: fc.constant({ ['k'.repeat(41)]: 'v' }) }),
  fc.record({ name: fc.integer() }),
);
const patch = fc.record(
  {
    name: fc.option(text, { nil: null }),
    email: fc.option(fc.constant('new@example.com'), { nil: null }),
    description: fc.option(fc.string({ maxLength: 50 }), { nil: null }),
    metadata: fc.option(
      fc.dictionary(metadataKey, fc.string({ maxLength: 10 }), {
        maxKeys: 2,
        noNullPrototype: true,
      }),
      {
        nil: null,
      },
    ),
  },
  { requiredKeys: [] },
);
const line = fc.record({
  quantity: fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 1, max: 10 }) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 1_000_000_000 }) },
  ),
  unitAmount: fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: -500, max: 100_000 }) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
    },
  ),
});
// Mostly keys that may write (actors 0–2), sometimes the read-only one (3).
const actor = fc.oneof(
  { weight: 6, arbitrary: fc.nat({ max: 2 }) },
  { weight: 1, arbitrary: fc.constant(3) },
);
const target = fc.record({
  index: fc.nat(),
  own: fc.oneof(
    { weight: 4, arbitrary: fc.constant(true) },
    { weight: 1, arbitrary: fc.constant(false) },
  ),
});

/** fc.commands picks uniformly: the common operations are listed more than once. */
const times = <T>(n: number, arbitrary: T): T[] => Array.from({ length: n }, () => arbitrary);
const commands = [
  ...times(
    3,
    fc.tuple(actor, customerBody).map(([a, b]) => new CreateCustomer(a, b, true)),
  ),
  fc.tuple(actor, invalidCustomerBody).map(([a, b]) => new CreateCustomer(a, b, false)),
  fc.tuple(actor, target).map(([a, p]) => new ReadObject(a, p)),
  fc.tuple(actor, target, patch).map(([a, p, b]) => new UpdateCustomer(a, p, b)),
  actor.map((a) => new ListCustomers(a)),
  actor.map((a) => new ListEvents(a)),
  ...times(
    3,
    fc
      .tuple(actor, target, fc.array(line, { minLength: 1, maxLength: 4 }))
      .map(([a, p, l]) => new CreateInvoice(a, p, l)),
  ),
  ...times(
    4,
    fc
      .tuple(actor, target, fc.constantFrom('issue', 'pay', 'void', 'mark-uncollectible', 'delete'))
      .map(([a, p, x]) => new InvoiceAction(a, p, x)),
  ),
  ...times(
    2,
    fc.tuple(actor, target, line).map(([a, p, l]) => new AddLine(a, p, l)),
  ),
  // Issuing starts every later workflow (payment, credit notes): more of it.
  ...times(
    3,
    fc.tuple(actor, target).map(([a, p]) => new InvoiceAction(a, p, 'issue')),
  ),
  fc
    .tuple(actor, target, fc.nat(), fc.jsonValue({ maxDepth: 3 }))
    .map(([a, p, t, b]) => new Junk(a, p, t, b)),
];

// Credit notes, once the document lists them.
const creditNoteCommands = [
  ...times(
    2,
    fc
      .tuple(actor, target, fc.integer({ min: 1, max: 1000 }), fc.boolean())
      .map(([a, p, share, over]) => new CreateCreditNote(a, p, share, over)),
  ),
  fc.tuple(actor, target).map(([a, p]) => new VoidCreditNote(a, p)),
];

// Payments, once the document lists them: partial ones mostly, some over what is owed.
const paymentCommands = [
  ...times(
    3,
    fc
      .tuple(
        actor,
        target,
        fc.integer({ min: 1, max: 1000 }),
        fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, fc.constant(true)),
        fc.constantFrom('bank_transfer', 'card', 'cash', 'check', 'direct_debit', 'other'),
      )
      .map(([a, p, share, over, method]) => new CreatePayment(a, p, share, over, method)),
  ),
  fc.tuple(actor, target).map(([a, p]) => new VoidPayment(a, p)),
];

/** Two tenants, both environments of the first, and a read-only key beside the first key. */
async function newWorld(db: Db, url: string, tally: Tally): Promise<World> {
  const a = await tenantKey(db, { scopes: WRITE_SCOPES });
  const aLive = await tenantKey(db, {
    tenantId: a.tenantId,
    environment: 'live',
    scopes: WRITE_SCOPES,
  });
  const b = await tenantKey(db, { scopes: WRITE_SCOPES });
  const aRead = await tenantKey(db, { tenantId: a.tenantId, scopes: READ_SCOPES });
  return {
    url,
    tally,
    actors: [
      { name: 'A/test', owner: `${a.tenantId}/test`, secret: a.secret, canWrite: true },
      { name: 'A/live', owner: `${a.tenantId}/live`, secret: aLive.secret, canWrite: true },
      { name: 'B/test', owner: `${b.tenantId}/test`, secret: b.secret, canWrite: true },
      {
        name: 'A/test read-only',
        owner: `${a.tenantId}/test`,
        secret: aRead.secret,
        canWrite: false,
      },
    ],
  };
}

export interface PropertyOptions {
  runs: number;
  maxCommands: number;
  seed?: number;
}

export async function runPropertyScenario(
  adminUrl: string,
  options: PropertyOptions,
): Promise<Figures> {
  const tally = new Tally('properties');
  const database = await createScratchDatabase(adminUrl);
  let server: ChildServer | undefined;
  try {
    server = await startChildServer(database.url, { RUN_WORKER: 'false' });
    const url = server.url;
    const document = (await request(url, 'GET', '/v1/openapi.json')).body;
    const withCreditNotes = document.paths?.['/v1/credit-notes']?.post !== undefined;
    const withPayments = document.paths?.['/v1/payments/{id}/void']?.post !== undefined;
    tally.note('creditNotes', withCreditNotes ? 'yes' : 'no');
    tally.note('payments', withPayments ? 'yes' : 'no');
    const all = [
      ...commands,
      ...(withCreditNotes ? creditNoteCommands : []),
      ...(withPayments ? paymentCommands : []),
    ];
    let runs = 0;
    const property = fc.asyncProperty(
      fc.commands(all, { maxCommands: options.maxCommands, size: 'max' }),
      async (steps) => {
        runs++;
        const world = await newWorld(database.db, url, tally);
        const model: Model = {
          customers: new Map(),
          invoices: new Map(),
          creditNotes: new Map(),
          payments: new Map(),
          ids: [],
        };
        // Each key that may write starts with a customer and an open invoice, so that the
        // later workflows (payment, credit notes) come early in every run.
        for (const actor of world.actors.filter((a) => a.canWrite)) {
          const index = world.actors.indexOf(actor);
          const own = { index: 0, own: true };
          await new CreateCustomer(index, { name: 'First' }, true).run(model, world);
          await new CreateInvoice(index, own, [{ quantity: 2, unitAmount: 1250 }]).run(
            model,
            world,
          );
          await new InvoiceAction(index, own, 'issue').run(model, world);
        }
        await fc.asyncModelRun(() => ({ model, real: world }), steps);
      },
    );
    const details = await fc.check(property, {
      numRuns: options.runs,
      seed: options.seed,
      endOnFailure: false,
    });
    tally.note('runs', runs);
    tally.note('seed', details.seed);
    if (details.failed) {
      const error = details.errorInstance instanceof Error ? details.errorInstance.message : '';
      tally.fail(`${fc.defaultReportMessage(details) ?? 'the property failed'}\n${error}`);
    }
  } finally {
    if (server) await killChild(server, 'SIGKILL');
    await database.drop();
  }
  return tally.figures();
}
