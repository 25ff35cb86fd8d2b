// The invoice state machine, as a pure function: every move the contract allows, and nothing
// else (the service answers anything else with 409 state_invalid).
//   draft → open (issue; straight on to paid when the total is 0)
//   open → paid | void | uncollectible;  uncollectible → paid | void
//   paid and void are final (credit notes may return a paid invoice to open: see credits.ts)
// Drafts alone may be edited or deleted; open, paid and uncollectible invoices may be sent,
// which delivers the record and keeps the status (a paid invoice is often sent for the
// buyer's books); metadata may change in every status.

export const INVOICE_STATUSES = ['draft', 'open', 'paid', 'void', 'uncollectible'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

export const INVOICE_ACTIONS = [
  'edit',
  'delete',
  'issue',
  'send',
  'pay',
  'void',
  'mark_uncollectible',
] as const;
export type InvoiceAction = (typeof INVOICE_ACTIONS)[number];

const MOVES: Record<InvoiceStatus, Partial<Record<InvoiceAction, InvoiceStatus | 'deleted'>>> = {
  draft: { edit: 'draft', delete: 'deleted', issue: 'open' },
  open: { send: 'open', pay: 'paid', void: 'void', mark_uncollectible: 'uncollectible' },
  uncollectible: { send: 'uncollectible', pay: 'paid', void: 'void' },
  paid: { send: 'paid' },
  void: {},
};

/** The status after `action`, or null when the action is not allowed in `status`. */
export function nextStatus(
  status: InvoiceStatus,
  action: InvoiceAction,
): InvoiceStatus | 'deleted' | null {
  return MOVES[status][action] ?? null;
}

/** The actions allowed in a status, for messages that tell the client what it can do. */
export function allowedActions(status: InvoiceStatus): InvoiceAction[] {
  return INVOICE_ACTIONS.filter((action) => nextStatus(status, action) !== null);
}
