import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  allowedActions,
  INVOICE_ACTIONS,
  INVOICE_STATUSES,
  nextStatus,
} from '../../src/invoices/state.ts';

// The contract's table, written out in full: every pair not listed is refused.
const ALLOWED: Record<string, string> = {
  'draft edit': 'draft',
  'draft delete': 'deleted',
  'draft issue': 'open',
  'open send': 'open',
  'open pay': 'paid',
  'open void': 'void',
  'open mark_uncollectible': 'uncollectible',
  'uncollectible send': 'uncollectible',
  'uncollectible pay': 'paid',
  'paid send': 'paid',
  'uncollectible void': 'void',
};

describe('invoice state machine', () => {
  it('allows exactly the moves of the contract and refuses every other', () => {
    for (const status of INVOICE_STATUSES) {
      for (const action of INVOICE_ACTIONS) {
        assert.equal(
          nextStatus(status, action),
          ALLOWED[`${status} ${action}`] ?? null,
          `${action} on ${status}`,
        );
      }
    }
  });

  it('keeps paid and void final', () => {
    assert.deepEqual(allowedActions('paid'), ['send']);
    assert.deepEqual(allowedActions('void'), []);
  });

  it('lists what a status allows', () => {
    assert.deepEqual(allowedActions('draft'), ['edit', 'delete', 'issue']);
    assert.deepEqual(allowedActions('uncollectible'), ['send', 'pay', 'void']);
  });
});
