// Reading events. Every change writes its events in the same transaction as the change (the
// unit of work's outbox, src/db/unit-of-work.ts), with their webhook deliveries, so an event
// exists exactly when its change committed.
import type { Db, Queryable } from '../db/pool.ts';
import { ResourceMissingError, ScopeInsufficientError } from '../errors.ts';
import type { PageRequest } from '../paging.ts';
import { requireScope } from '../keys/scopes.ts';
import type { Actor } from '../tenancy.ts';
import type { Event } from './schemas.ts';
import { selectEvent, selectEventPage, type EventRow } from './store.ts';
import { EVENT_READ_SCOPES, readableTypes, readScopeOf, type EventType } from './types.ts';

export function eventFromRow(row: EventRow): Event {
  return {
    id: row.id,
    object: 'event',
    type: row.type,
    createdAt: row.created_at.toISOString(),
    environment: row.environment,
    data: row.data as Event['data'],
    actor: row.actor,
  };
}

/**
 * One event. A key that lacks the read scope of the event's object gets 403
 * scope_insufficient naming that scope: the event belongs to its own tenant, and the answer
 * says what to add.
 */
export async function getEvent(db: Queryable, actor: Actor, id: string): Promise<Event> {
  const row = await selectEvent(db, actor, id);
  if (!row) throw new ResourceMissingError('event', id);
  const scope = readScopeOf(row.type);
  if (scope !== null) requireScope(actor, scope);
  // A type outside the contract is listed only for keys that read every type; so is it read.
  else for (const each of EVENT_READ_SCOPES) requireScope(actor, each);
  return eventFromRow(row);
}

/**
 * One page of events, newest first. With `type`, the key needs that type's read scope.
 * Without, the list holds only the types the key can read; a key that reads none is refused.
 */
export async function listEvents(
  db: Db,
  actor: Actor,
  type: EventType | undefined,
  page: PageRequest,
): Promise<EventRow[]> {
  let types: readonly string[] | null;
  if (type !== undefined) {
    requireScope(actor, readScopeOf(type)!);
    types = [type];
  } else {
    types = readableTypes(actor.scopes);
    if (types !== null && types.length === 0) {
      throw new ScopeInsufficientError(
        EVENT_READ_SCOPES[0]!,
        `Listing events needs at least one of ${EVENT_READ_SCOPES.join(', ')}.`,
      );
    }
  }
  return selectEventPage(db, actor, types, page);
}
