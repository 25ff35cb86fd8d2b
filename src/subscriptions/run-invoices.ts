// The run's work on the invoices it made, in batches: one unit of work claims up to BATCH rows
// of due work of one tenant (locked, skipping those another worker holds) and does each —
// an issue, then at once what follows it (send, void, mark uncollectible) — through the
// invoices' own lifecycle (issueInvoiceIn and the like: the same rules, numbers and events as
// an issue through the API), recording in the ledger, in the same transaction, that it is done.
// The batch's invoice numbers are taken from the tenant's counter in that one transaction, so
// they commit, or roll back, together: gapless.
//
// One failure rolls the whole batch back (an invoice the API issued or deleted during its grace
// period, a tenant that requires e-invoices it cannot make); its rows are then done one by one,
// each in a unit of work of its own (`workAlone`), where such an invoice is left as it is.
import { fixedClock } from '../clock.ts';
import type { Db } from '../db/pool.ts';
import { unitOfWork, writtenValue, type UnitOfWork } from '../db/unit-of-work.ts';
import { EinvoiceIncompleteError, ResourceMissingError, StateInvalidError } from '../errors.ts';
import type { HostedLinks } from '../hosted/links.ts';
import {
  issueInvoiceIn,
  readShared,
  sendInvoiceIn,
  transitionInvoiceIn,
  type AlsoInTransaction,
  type IssuedRow,
  type SharedReads,
} from '../invoices/service.ts';
import { operator } from '../tenancy.ts';
import { claimDueWork, selectInvoicing, type BatchSource } from './due-store.ts';
import { NumberBlock } from '../documents/service.ts';
import { finishLedgerWork, setLedgerWork, type InvoiceWork, type WorkRow } from './ledger-store.ts';
import type { Billing } from './periods.ts';
import { allOrFirstFailure, BATCH, inBatch, type BatchOutcome } from './run-boundaries.ts';

export interface InvoiceWorkDeps extends Billing {
  db: Db;
  links: HostedLinks;
}

/** What the invoices of one batch share: its block of numbers, what it read once for all. */
interface WorkBatch {
  numbers: NumberBlock;
  reads: SharedReads;
  /** The rows whose work is done, recorded in the ledger together at the batch's end. */
  finished: WorkRow[];
}

/**
 * Does the row's work at `now` inside `uow`; `autoSend`: whether the subscription e-mails its
 * invoices. In a `batch`, what follows an issue (send, void, mark uncollectible) is done in the
 * same transaction, so the ledger's work is done when it commits; alone, the ledger says what
 * follows, for the next pass.
 */
async function doWorkIn(
  deps: InvoiceWorkDeps,
  uow: UnitOfWork,
  work: WorkRow,
  options: { autoSend: boolean; now: Date; batch?: WorkBatch },
): Promise<void> {
  const { documents, links } = deps;
  const { now, batch } = options;
  const clock = fixedClock(now);
  const moveOn =
    (next: InvoiceWork | null): AlsoInTransaction =>
    (u) =>
      setLedgerWork(u.tx, u.actor, work, next === null ? null : { work: next, at: now });
  // The work is done: recorded now, or with the rest of the batch at its end.
  const finish: AlsoInTransaction = batch
    ? async () => {
        batch.finished.push(work);
      }
    : moveOn(null);
  const id = work.invoice_id;
  const reads = batch?.reads;
  let step: InvoiceWork | null = work.work;
  let hostedUrl: string | null = null;
  let issuedRow: IssuedRow | undefined;
  if (step === 'issue') {
    // What follows: the pause's rule for an invoice made while paused, else autoSend.
    const next = work.after_issue ?? (options.autoSend ? 'send' : null);
    const also = batch ? undefined : moveOn(next);
    const issue = {
      takeNumber: batch?.numbers.take,
      reads,
      issued: (row: IssuedRow) => (issuedRow = row),
      // In a batch the e-mail follows in this transaction, so the issue's update queues it.
      thenSend: batch !== undefined && next === 'send',
    };
    const issued = await issueInvoiceIn(uow, clock, documents, links, id, also, issue);
    if (!batch) return;
    step = next;
    hostedUrl = issued.hostedInvoiceUrl;
  }
  if (step === 'send') {
    const sent = { reads, hostedUrl, issued: issuedRow };
    await sendInvoiceIn(uow, clock, documents, links, id, finish, sent);
  } else if (step === null) await finish(uow);
  else await transitionInvoiceIn(uow, clock, links, id, step, finish);
}

/** Claims and does one batch of the source's due invoice work. */
export async function workBatch(
  deps: InvoiceWorkDeps,
  source: BatchSource,
  now: Date,
): Promise<BatchOutcome> {
  const { scope } = source;
  const outcome = await inBatch(
    deps.db,
    source,
    (uow) => claimDueWork(uow.tx, source, now, BATCH),
    async (uow, claimed) => {
      const subscriptions = await selectInvoicing(
        uow.tx,
        scope,
        claimed.map((w) => w.subscription_id),
      );
      // What each issue and e-mail would read again, read once for the batch.
      const customers = [...subscriptions.values()].map((s) => s.customerId);
      const batch: WorkBatch = {
        // The batch's numbers in one block, taken once every issue has come to its number.
        numbers: new NumberBlock('invoice', claimed.filter((w) => w.work === 'issue').length),
        reads: await readShared(uow.tx, scope, customers),
        finished: [],
      };
      // Their statements are pipelined on the transaction's one connection.
      await allOrFirstFailure(
        claimed.map((w) =>
          doWorkIn(deps, uow, w, {
            autoSend: subscriptions.get(w.subscription_id)?.autoSend ?? false,
            now,
            batch,
          }).catch((error: unknown) => {
            batch.numbers.fail(error);
            throw error;
          }),
        ),
      );
      await finishLedgerWork(uow.tx, scope, batch.finished);
      return claimed.length;
    },
    (row) => workAlone(deps, row, now),
  );
  // The issued invoices' documents are rendered now rather than at the next poll (done alone,
  // each says so itself).
  if (outcome.done > 0 && outcome.failure === undefined) deps.documents.issued();
  return outcome;
}

/**
 * Does one step of an invoice's work in a unit of work of its own (the ledger says what
 * follows, for the next pass: an issue stands even if what follows it cannot be done); 1.
 */
export async function workAlone(deps: InvoiceWorkDeps, work: WorkRow, now: Date): Promise<number> {
  const { db } = deps;
  const scope = { tenantId: work.tenant_id, environment: work.environment };
  const request = { actor: operator(scope.tenantId, scope.environment) };
  try {
    await unitOfWork(db, request, async (uow) => {
      const subscription = await selectInvoicing(uow.tx, scope, [work.subscription_id]);
      const autoSend = subscription.get(work.subscription_id)?.autoSend ?? false;
      await doWorkIn(deps, uow, work, { autoSend, now });
    }).then(writtenValue);
  } catch (error) {
    // The invoice was moved by someone else (issued, deleted or voided through the API), or
    // cannot be issued as it is (einvoiceRequired): the run leaves it as it is.
    if (
      error instanceof StateInvalidError ||
      error instanceof ResourceMissingError ||
      error instanceof EinvoiceIncompleteError
    ) {
      await unitOfWork(db, request, (uow) => setLedgerWork(uow.tx, uow.actor, work, null));
    } else {
      throw error;
    }
  }
  if (work.work === 'issue') deps.documents.issued();
  return 1;
}
