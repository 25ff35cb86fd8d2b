// SQL of stored documents: written once (ON CONFLICT DO NOTHING, so of two renders of the same
// document the first is kept), read by subject.
import type { Queryable } from '../db/pool.ts';
import type { TenantScope } from '../tenancy.ts';

export type DocumentFormat = 'pdf' | 'ubl' | 'cii';

export interface DocumentRow {
  format: DocumentFormat;
  content: Buffer | null;
  missing: string[] | null;
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

/** The stored documents of a subject (primary key prefix). */
export async function selectDocuments(
  db: Queryable,
  scope: TenantScope,
  subjectId: string,
): Promise<DocumentRow[]> {
  const { rows } = await db.query<DocumentRow>(
    `SELECT format, content, missing FROM documents
      WHERE tenant_id = $1 AND environment = $2 AND subject_id = $3`,
    [scope.tenantId, scope.environment, subjectId],
  );
  return rows;
}

/** Which documents of a subject are stored, and which of them have content, without the bytes. */
export async function selectDocumentFormats(
  db: Queryable,
  scope: TenantScope,
  subjectId: string,
): Promise<{ format: DocumentFormat; available: boolean }[]> {
  const { rows } = await db.query<{ format: DocumentFormat; available: boolean }>(
    `SELECT format, content IS NOT NULL AS available FROM documents
      WHERE tenant_id = $1 AND environment = $2 AND subject_id = $3`,
    [scope.tenantId, scope.environment, subjectId],
  );
  return rows;
}
