// What the usage tests share: meters and events made over the API, and the outcomes of a batch.
import assert from 'node:assert/strict';
import type { Api } from '../invoices/fixtures.ts';

export interface SentEvent {
  id: string;
  eventName: string;
  customerId: string;
  timestamp: string;
  properties?: Record<string, unknown>;
}

export interface Outcome {
  id: string | null;
  status: 'accepted' | 'duplicate' | 'error';
  error?: { code: string; message: string };
}

export async function createMeter(api: Api, body: Record<string, unknown>) {
  const res = await api.post('/v1/meters', { displayName: 'Usage', ...body });
  assert.equal(res.status, 201, res.text);
  return res.body as { id: string; [field: string]: unknown };
}

/** Sends a batch and returns its outcomes (asserting the request itself succeeded). */
export async function sendEvents(api: Api, events: readonly unknown[]): Promise<Outcome[]> {
  const res = await api.post('/v1/usage-events', { events });
  assert.equal(res.status, 200, res.text);
  return res.body.data as Outcome[];
}

/** Each outcome as `status` or `error code`, for compact assertions. */
export const statuses = (outcomes: readonly Outcome[]) =>
  outcomes.map((o) => (o.status === 'error' ? o.error!.code : o.status));

/** A meter's summary of one customer over [from, to) as one value. */
export async function usageOf(
  api: Api,
  meterId: string,
  customerId: string,
  from: string,
  to: string,
): Promise<string> {
  const query = new URLSearchParams({ customerId, from, to });
  const res = await api.get(`/v1/meters/${meterId}/summaries?${query}`);
  assert.equal(res.status, 200, res.text);
  return res.body.data[0].value as string;
}
