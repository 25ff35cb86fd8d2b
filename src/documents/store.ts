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

export async function insertDocument(
  db: Queryable,
  scope: TenantScope,
  subjectId: string,
  document: NewDocument,
): Promise<void> {
  await db.query(
    `INSERT INTO documents (tenant_id, environment, subject_id, format, content, missing, sha256)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT DO NOTHING`,
    [
      scope.tenantId,
      scope.environment,
      subjectId,
      document.format,
      document.content,
      document.missing,
      document.sha256,
    ],
  );
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
