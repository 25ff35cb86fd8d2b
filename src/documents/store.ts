// SQL of issued documents: their number counters (./numbering.ts), and their stored files,
// written once (ON CONFLICT DO NOTHING, so of two renders of the same document the first is
// kept), read by subject; a stored e-invoice that is not well-formed is replaced, marked as
// such (./repair.ts).
import type { Queryable } from '../db/pool.ts';
import type { TenantScope } from '../tenancy.ts';

export type DocumentFormat = 'pdf' | 'ubl' | 'cii';

/** A numbering series: invoices and credit notes each have their own gapless one. */
export type NumberSeries = 'invoice' | 'credit_note';

// One counter table per series (see the migrations); the statement is the same for both.
const TAKE_NEXT_NUMBERS: Record<NumberSeries, string> = {
  invoice: `INSERT INTO invoice_number_counters AS c (tenant_id, environment, last_number)
            VALUES ($1, $2, $3)
            ON CONFLICT (tenant_id, environment) DO UPDATE SET last_number = c.last_number + $3
            RETURNING last_number`,
  credit_note: `INSERT INTO credit_note_number_counters AS c (tenant_id, environment, last_number)
                VALUES ($1, $2, $3)
                ON CONFLICT (tenant_id, environment) DO UPDATE SET last_number = c.last_number + $3
                RETURNING last_number`,
};

/**
 * Takes the next `count` numbers of the series for the tenant and environment; the last of
 * them. The counter row stays locked until the calling transaction ends: a rollback returns
 * the numbers, so numbers have no gaps.
 */
export async function takeNextNumbers(
  db: Queryable,
  scope: TenantScope,
  series: NumberSeries,
  count = 1,
): Promise<number> {
  const { rows } = await db.query<{ last_number: number }>(TAKE_NEXT_NUMBERS[series], [
    scope.tenantId,
    scope.environment,
    count,
  ]);
  return rows[0]!.last_number;
}

export interface DocumentRow {
  format: DocumentFormat;
  content: Buffer | null;
  missing: string[] | null;
  /** Read back as well-formed XML (always, since the renderer checks; once, for older rows). */
  checked: boolean;
}

export interface NewDocument {
  format: DocumentFormat;
  content: Buffer | null;
  missing: string[] | null;
  sha256: Buffer | null;
}

/**
 * Inserts a subject's documents in one statement; returns the formats inserted (a format
 * stored already, by a render that came first, is kept and not returned).
 */
export async function insertDocuments(
  db: Queryable,
  scope: TenantScope,
  subjectId: string,
  documents: readonly [NewDocument, NewDocument, NewDocument],
): Promise<DocumentFormat[]> {
  // One row of parameters per document: the bytes go as binary parameters, unescaped.
  const { rows } = await db.query<{ format: DocumentFormat }>({
    name: 'insert_documents',
    text: `INSERT INTO documents (tenant_id, environment, subject_id, format, content, missing,
                                  sha256)
           VALUES ($1, $2, $3, $4, $5::bytea, $6::text[], $7::bytea),
                  ($1, $2, $3, $8, $9::bytea, $10::text[], $11::bytea),
                  ($1, $2, $3, $12, $13::bytea, $14::text[], $15::bytea)
           ON CONFLICT DO NOTHING
           RETURNING format`,
    values: [
      scope.tenantId,
      scope.environment,
      subjectId,
      ...documents.flatMap((d) => [d.format, d.content, d.missing, d.sha256]),
    ],
  });
  return rows.map((r) => r.format);
}

/** Runs `sql` on the documents of one subject ($1-$3: its key, a primary key prefix). */
async function ofSubject<Row extends object>(
  db: Queryable,
  sql: string,
  scope: TenantScope,
  subjectId: string,
): Promise<Row[]> {
  const { rows } = await db.query<Row>(sql, [scope.tenantId, scope.environment, subjectId]);
  return rows;
}

const SUBJECT = 'tenant_id = $1 AND environment = $2 AND subject_id = $3';

/** The stored documents of a subject. */
export function selectDocuments(
  db: Queryable,
  scope: TenantScope,
  subjectId: string,
): Promise<DocumentRow[]> {
  const sql = `SELECT format, content, missing, xml_checked AS checked FROM documents
                WHERE ${SUBJECT}`;
  return ofSubject(db, sql, scope, subjectId);
}

/** Marks a subject's stored documents as read back well-formed (see DocumentRow.checked). */
export async function markDocumentsChecked(
  db: Queryable,
  scope: TenantScope,
  subjectId: string,
): Promise<void> {
  const sql = `UPDATE documents SET xml_checked = true WHERE ${SUBJECT} AND NOT xml_checked`;
  await ofSubject(db, sql, scope, subjectId);
}

/** Which documents of a subject are stored, and which of them have content, without the bytes. */
export function selectDocumentFormats(
  db: Queryable,
  scope: TenantScope,
  subjectId: string,
): Promise<{ format: DocumentFormat; available: boolean }[]> {
  const sql = `SELECT format, content IS NOT NULL AS available FROM documents WHERE ${SUBJECT}`;
  return ofSubject(db, sql, scope, subjectId);
}

/**
 * Replaces a stored document with `document` (./repair.ts), marking the row with the time and
 * the SHA-256 of what it replaced; only if the row still holds the bytes `replaced` (of two
 * repairs racing, one replaces). Returns whether it replaced.
 */
export async function replaceDocument(
  db: Queryable,
  scope: TenantScope,
  subjectId: string,
  document: NewDocument,
  replaced: Buffer,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE documents
        SET content = $5::bytea, missing = $6::text[], sha256 = $7::bytea,
            repaired_at = clock_timestamp(), replaced_sha256 = sha256(content),
            xml_checked = true
      WHERE tenant_id = $1 AND environment = $2 AND subject_id = $3 AND format = $4
        AND content = $8::bytea`,
    [
      scope.tenantId,
      scope.environment,
      subjectId,
      document.format,
      document.content,
      document.missing,
      document.sha256,
      replaced,
    ],
  );
  return rowCount === 1;
}

export interface StoredEinvoice {
  subjectId: string;
  format: 'ubl' | 'cii';
  content: Buffer;
}

/**
 * A page of `limit` subjects' stored e-invoices (those with content), the subjects in key
 * order after `after` ('' for the first page), and the cursor of the next page (null: none).
 */
export async function selectStoredEinvoices(
  db: Queryable,
  scope: TenantScope,
  after: string,
  limit: number,
): Promise<{ einvoices: StoredEinvoice[]; next: string | null }> {
  const subjects = await db.query<{ subject_id: string }>(
    `SELECT DISTINCT subject_id FROM documents
      WHERE tenant_id = $1 AND environment = $2 AND subject_id > $3
      ORDER BY subject_id LIMIT $4`,
    [scope.tenantId, scope.environment, after, limit],
  );
  const ids = subjects.rows.map((r) => r.subject_id);
  if (ids.length === 0) return { einvoices: [], next: null };
  const { rows } = await db.query<{ subject_id: string; format: 'ubl' | 'cii'; content: Buffer }>(
    `SELECT subject_id, format, content FROM documents
      WHERE tenant_id = $1 AND environment = $2 AND subject_id = ANY($3::text[])
        AND format IN ('ubl', 'cii') AND content IS NOT NULL
      ORDER BY subject_id, format`,
    [scope.tenantId, scope.environment, ids],
  );
  return {
    einvoices: rows.map((r) => ({ subjectId: r.subject_id, format: r.format, content: r.content })),
    next: ids.length < limit ? null : ids[ids.length - 1]!,
  };
}
