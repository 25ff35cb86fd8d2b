// The event types of the contract and the read scope each needs: an event is readable with
// the read scope of the object it describes.
import type { Scope } from '../keys/scopes.ts';

export const EVENT_TYPES = [
  'customer.created',
  'customer.updated',
  'invoice.created',
  'invoice.updated',
  'invoice.deleted',
  'invoice.issued',
  'invoice.sent',
  'invoice.paid',
  'invoice.voided',
  'invoice.marked_uncollectible',
  'invoice.overdue',
  'invoice.reminder_sent',
  'credit_note.created',
  'credit_note.voided',
  'credit_note.sent',
  'payment.created',
  'payment.voided',
  'tax_rate.created',
  'tax_rate.updated',
  'api_key.created',
  'api_key.rotated',
  'api_key.revoked',
  'settings.updated',
  'subscription.created',
  'subscription.updated',
  'subscription.trial_will_end',
  'subscription.past_due',
  'subscription.paused',
  'subscription.resumed',
  'subscription.canceled',
  'test_clock.created',
  'test_clock.advancing',
  'test_clock.ready',
  'test_clock.deleted',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

const READ_SCOPE_BY_OBJECT: Record<string, Scope> = {
  customer: 'customers:read',
  invoice: 'invoices:read',
  credit_note: 'invoices:read',
  payment: 'invoices:read',
  tax_rate: 'invoices:read',
  api_key: 'keys:read',
  settings: 'settings:read',
  subscription: 'subscriptions:read',
  test_clock: 'subscriptions:read',
};

/** The scopes that read events, in the order an error message lists them. */
export const EVENT_READ_SCOPES: readonly Scope[] = [
  'customers:read',
  'invoices:read',
  'keys:read',
  'settings:read',
  'subscriptions:read',
];

/** The scope that reads events of this type; null for a type outside the contract. */
export function readScopeOf(type: string): Scope | null {
  return READ_SCOPE_BY_OBJECT[type.slice(0, type.indexOf('.'))] ?? null;
}

/**
 * The event types a key with these scopes may read: every type (null) when it holds every
 * read scope, otherwise the listed types whose scope it holds (possibly none).
 */
export function readableTypes(scopes: readonly string[]): EventType[] | null {
  if (EVENT_READ_SCOPES.every((s) => scopes.includes(s))) return null;
  return EVENT_TYPES.filter((t) => scopes.includes(readScopeOf(t)!));
}
