// Issued documents as records: each issued invoice or credit note has its PDF and e-invoices
// rendered once from the data frozen at issue, stored, and served byte-identical ever after.
// Rendering happens off the event loop (the render pool) and outside any transaction; it is
// asked for right after the issue commits, and again by the first reader should the process
// have stopped in between. Rendering is deterministic, so either gives the same bytes, and of
// two renders racing only the first is stored.
import { createHash } from 'node:crypto';
import type { Db } from '../db/pool.ts';
import { unitOfWork } from '../db/unit-of-work.ts';
import { operator, type TenantScope } from '../tenancy.ts';
import type { IssuedDocuments } from './issued.ts';
import type { DocumentModel } from './model.ts';
import type { RenderPool } from './render-pool.ts';
import {
  insertDocument,
  selectDocumentFormats,
  selectDocuments,
  type DocumentFormat,
  type DocumentRow,
} from './store.ts';

export type { DocumentFormat } from './store.ts';

export type StoredDocument = { content: Buffer } | { missing: string[] };

const FORMATS: readonly DocumentFormat[] = ['pdf', 'ubl', 'cii'];

function sha256(content: Buffer): Buffer {
  return createHash('sha256').update(content).digest();
}

function rowsToDocuments(rows: readonly DocumentRow[]): Map<DocumentFormat, StoredDocument> {
  return new Map(
    rows.map((r) => [
      r.format,
      r.content === null ? { missing: r.missing ?? [] } : { content: r.content },
    ]),
  );
}

async function store(db: Db, scope: TenantScope, subjectId: string, docs: IssuedDocuments) {
  const entries: [DocumentFormat, Buffer | null, string[] | null][] = [
    ['pdf', Buffer.from(docs.pdf), null],
    ...(['ubl', 'cii'] as const).map((format): [DocumentFormat, Buffer | null, string[] | null] => {
      const outcome = docs[format];
      return 'xml' in outcome
        ? [format, Buffer.from(outcome.xml, 'utf8'), null]
        : [format, null, outcome.missing];
    }),
  ];
  await unitOfWork(db, { actor: operator(scope.tenantId, scope.environment) }, async ({ tx }) => {
    for (const [format, content, missing] of entries) {
      await insertDocument(tx, scope, subjectId, {
        format,
        content,
        missing,
        sha256: content && sha256(content),
      });
    }
  });
}

/**
 * The stored documents of an issued invoice or credit note, rendered and stored first if they
 * are not (yet). `model` builds the document model from the frozen data.
 */
export async function issuedDocuments(
  db: Db,
  renderer: RenderPool,
  scope: TenantScope,
  subjectId: string,
  model: () => Promise<DocumentModel>,
): Promise<Map<DocumentFormat, StoredDocument>> {
  let documents = rowsToDocuments(await selectDocuments(db, scope, subjectId));
  if (FORMATS.every((f) => documents.has(f))) return documents;
  await store(db, scope, subjectId, await renderer.renderIssued(await model()));
  documents = rowsToDocuments(await selectDocuments(db, scope, subjectId));
  return documents;
}

/** One stored document of an issued invoice or credit note (see issuedDocuments). */
export async function issuedDocument(
  db: Db,
  renderer: RenderPool,
  scope: TenantScope,
  subjectId: string,
  format: DocumentFormat,
  model: () => Promise<DocumentModel>,
): Promise<StoredDocument> {
  return (await issuedDocuments(db, renderer, scope, subjectId, model)).get(format)!;
}

/**
 * Which of an issued document's formats exist (an e-invoice its data do not allow does not),
 * read without the bytes; rendered and stored first if they are not (yet).
 */
export async function issuedDocumentFormats(
  db: Db,
  renderer: RenderPool,
  scope: TenantScope,
  subjectId: string,
  model: () => Promise<DocumentModel>,
): Promise<Set<DocumentFormat>> {
  let rows = await selectDocumentFormats(db, scope, subjectId);
  if (!FORMATS.every((f) => rows.some((r) => r.format === f))) {
    await issuedDocuments(db, renderer, scope, subjectId, model);
    rows = await selectDocumentFormats(db, scope, subjectId);
  }
  return new Set(rows.filter((r) => r.available).map((r) => r.format));
}
