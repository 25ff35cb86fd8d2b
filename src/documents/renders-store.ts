// SQL of the render queue (migration 0034): issued invoices and credit notes whose documents
// are still to be rendered, queued by the outcome statement of the unit of work that issued
// them and removed with the documents' insert; and the lock that serialises renders of one
// subject (./records.ts).
import type { OutboxFollower } from '../db/store.ts';
import type { Queryable, Tx } from '../db/pool.ts';
import type { TenantScope } from '../tenancy.ts';

/**
 * Follows the outbox (src/db/unit-of-work.ts): the event that issues a document queues its
 * render in the same statement, so queueing costs the issue no round trip. The tenant and
 * environment are the statement's constants $7 and $8 (see OutboxFollower).
 */
export const documentRenders: OutboxFollower = {
  name: 'renders of the documents the events issue',
  sql: `INSERT INTO document_renders (tenant_id, environment, subject_id, kind)
       SELECT q.tenant_id, q.environment, q.object_id,
              CASE q.type WHEN 'invoice.issued' THEN 'invoice' ELSE 'credit_note' END
         FROM queued q
        WHERE q.type IN ('invoice.issued', 'credit_note.created')
          AND q.tenant_id = $7 AND q.environment = $8
       ON CONFLICT DO NOTHING`,
};

export type RenderKind = 'invoice' | 'credit_note';

export interface QueuedRender {
  tenant_id: string;
  environment: TenantScope['environment'];
  subject_id: string;
  kind: RenderKind;
  attempts: number;
}

/**
 * Claims up to `limit` due renders of any tenant: each moves past a lease of `leaseSeconds`
 * times 2^(attempts), so a render that fails (or whose worker died) is tried again later, less
 * and less often. The claim is only a schedule; the render itself is serialised by its lock.
 */
export async function claimDueRenders(
  db: Queryable,
  limit: number,
  leaseSeconds: number,
): Promise<QueuedRender[]> {
  // Named: prepared once per connection, since the worker polls with it.
  const { rows } = await db.query<QueuedRender>({
    name: 'documents_renders_claim',
    text: `WITH due AS (
       SELECT tenant_id, environment, subject_id FROM document_renders
        WHERE next_attempt_at <= clock_timestamp()
        ORDER BY next_attempt_at LIMIT $1
        FOR UPDATE SKIP LOCKED)
     UPDATE document_renders r
        SET attempts = r.attempts + 1,
            next_attempt_at = clock_timestamp()
                              + make_interval(secs => $2 * power(2, least(r.attempts, 10)))
       FROM due
      WHERE r.tenant_id = due.tenant_id AND r.environment = due.environment
        AND r.subject_id = due.subject_id
      RETURNING r.tenant_id, r.environment, r.subject_id, r.kind, r.attempts`,
    values: [limit, leaseSeconds],
  });
  return rows;
}

function lockKey(scope: TenantScope, subjectId: string): string {
  return `documents\n${scope.tenantId}\n${scope.environment}\n${subjectId}`;
}

/**
 * Takes the subject's render lock for the transaction: waiting for a render in progress
 * elsewhere (`wait`), or not at all (false: another is rendering it now).
 */
export async function lockRender(
  tx: Tx,
  scope: TenantScope,
  subjectId: string,
  wait: boolean,
): Promise<boolean> {
  const { rows } = await tx.query<{ locked: boolean }>({
    name: wait ? 'documents_render_lock' : 'documents_render_try_lock',
    text: wait
      ? 'SELECT true AS locked FROM pg_advisory_xact_lock(hashtextextended($1, 0))'
      : 'SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked',
    values: [lockKey(scope, subjectId)],
  });
  return rows[0]!.locked;
}

/** Removes the subject's queued render (its documents are stored). */
export async function deleteQueuedRender(
  tx: Tx,
  scope: TenantScope,
  subjectId: string,
): Promise<void> {
  await tx.query({
    name: 'documents_render_done',
    text: `DELETE FROM document_renders
            WHERE tenant_id = $1 AND environment = $2 AND subject_id = $3`,
    values: [scope.tenantId, scope.environment, subjectId],
  });
}
