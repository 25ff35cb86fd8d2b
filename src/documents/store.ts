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
  documents: readonly NewDocument[],
): Promise<DocumentFormat[]> {
  const { rows } = await db.query<{ format: DocumentFormat }>(
    `INSERT INTO documents (tenant_id, environment, subject_id, format, content, missing, sha256)
     SELECT $1, $2, $3, d.format, d.content,
            CASE WHEN d.missing = 'null' THEN NULL
                 ELSE ARRAY(SELECT jsonb_array_elements_text(d.missing)) END, d.sha256
       FROM unnest($4::text[], $5::bytea[], $6::jsonb[], $7::bytea[])
            AS d(format, content, missing, sha256)
     ON CONFLICT DO NOTHING
     RETURNING format`,
    [
      scope.tenantId,
      scope.environment,
      subjectId,
      documents.map((d) => d.format),
      documents.map((d) => d.content),
      documents.map((d) => JSON.stringify(d.missing)),
      documents.map((d) => d.sha256),
    ],
  );
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
