// SQL of the sign-in throttle in PostgreSQL: failed sign-ins per (tenant, subject) in a fixed
// window (primary key of console_sign_in_failures).
import type { Queryable } from '../db/pool.ts';

/** Failures counted in the current windows of these subjects, with each window's start. */
export async function selectFailures(
  db: Queryable,
  tenantId: string,
  subjects: readonly string[],
  windowSince: Date,
): Promise<{ subject: string; failures: number; window_start: Date }[]> {
  const { rows } = await db.query<{ subject: string; failures: number; window_start: Date }>(
    `SELECT subject, failures, window_start FROM console_sign_in_failures
      WHERE tenant_id = $1 AND subject = ANY($2::text[]) AND window_start >= $3`,
    [tenantId, subjects, windowSince],
  );
  return rows;
}

/** Counts one failure of each subject; a window that ended starts again at `at`. */
export async function countFailures(
  db: Queryable,
  tenantId: string,
  subjects: readonly string[],
  at: Date,
  windowSince: Date,
): Promise<void> {
  await db.query(
    `INSERT INTO console_sign_in_failures (tenant_id, subject, window_start, failures)
     SELECT $1, s, $3, 1 FROM unnest($2::text[]) AS s
     ON CONFLICT (tenant_id, subject) DO UPDATE
        SET failures = CASE WHEN console_sign_in_failures.window_start < $4 THEN 1
                            ELSE console_sign_in_failures.failures + 1 END,
            window_start = CASE WHEN console_sign_in_failures.window_start < $4 THEN $3
                                ELSE console_sign_in_failures.window_start END`,
    [tenantId, subjects, at, windowSince],
  );
}

export async function clearFailures(
  db: Queryable,
  tenantId: string,
  subject: string,
): Promise<void> {
  await db.query('DELETE FROM console_sign_in_failures WHERE tenant_id = $1 AND subject = $2', [
    tenantId,
    subject,
  ]);
}
