// Issued documents as records (stored for ./service.ts): each issued invoice or credit note has
// its PDF and e-invoices rendered once from the data frozen at issue, stored, and served
// byte-identical ever after.
// Rendering happens off the event loop (the render pool), after the issue has committed and
// been answered: by the worker, which renders what the issue queued (./render-queue.ts), or by
// the first reader, whichever comes first. Renders of one subject are serialised by a lock, so
// a document is rendered once; rendering is deterministic, so whoever renders it, its bytes
// are those of the data frozen at issue.
import type { Db, Queryable } from '../db/pool.ts';
import { unitOfWork, writtenValue } from '../db/unit-of-work.ts';
import { operator, type TenantScope } from '../tenancy.ts';
import type { DocumentModel } from './model.ts';
import type { RenderPool } from './render-pool.ts';
import { deleteQueuedRender, lockRender } from './renders-store.ts';
import { brokenFormats, documentRow, repairDocuments } from './repair.ts';
import {
  insertDocuments,
  markDocumentsChecked,
  selectDocumentFormats,
  selectDocuments,
  type DocumentFormat,
  type DocumentRow,
} from './store.ts';

export type { DocumentFormat } from './store.ts';

/**
 * A subject's document model, from the data it froze at issue, read on `on` (a render reads it
 * on its transaction's connection).
 */
export type ModelOn = (on: Queryable) => Promise<DocumentModel>;

export type StoredDocument = { content: Buffer } | { missing: string[] };

const FORMATS: readonly DocumentFormat[] = ['pdf', 'ubl', 'cii'];

function rowsToDocuments(rows: readonly DocumentRow[]): Map<DocumentFormat, StoredDocument> {
  return new Map(
    rows.map((r) => [
      r.format,
      r.content === null ? { missing: r.missing ?? [] } : { content: r.content },
    ]),
  );
}

/**
 * Renders the subject's documents from `model` and stores them, once: under the subject's
 * render lock (./renders-store.ts), in one transaction with the removal of its queued render.
 * A render in progress elsewhere is waited for (`wait`: a reader) and what it stored is read,
 * or left to it (the worker): then null. Rendering is deterministic, so whoever renders, the
 * bytes are the same.
 *
 * The model is read on the transaction's own connection (`model(tx)`), and only once the lock
 * says this render is the one to do: read on the pool, a render would hold one connection while
 * it waited for a second, and as many renders as the pool has connections (the document
 * worker's and the mail worker's together) would wait for each other until the pool's timeout.
 */
export async function renderOnce(
  db: Db,
  renderer: RenderPool,
  scope: TenantScope,
  subjectId: string,
  model: ModelOn,
  wait: boolean,
): Promise<DocumentRow[] | null> {
  const written = await unitOfWork(
    db,
    { actor: operator(scope.tenantId, scope.environment) },
    async ({ tx }) => {
      // Read once the lock is held: a render that held it before has committed its documents.
      const [locked, rows] = await Promise.all([
        lockRender(tx, scope, subjectId, wait),
        selectDocuments(tx, scope, subjectId),
      ]);
      if (!locked) return null;
      if (FORMATS.every((f) => rows.some((r) => r.format === f))) {
        await deleteQueuedRender(tx, scope, subjectId);
        return rows;
      }
      const docs = await renderer.renderIssued(await model(tx));
      const fresh = [
        documentRow(docs, 'pdf'),
        documentRow(docs, 'ubl'),
        documentRow(docs, 'cii'),
      ] as const;
      const [inserted] = await Promise.all([
        insertDocuments(tx, scope, subjectId, fresh),
        deleteQueuedRender(tx, scope, subjectId),
      ]);
      if (inserted.length === FORMATS.length) {
        return fresh.map(({ format, content, missing }) => ({
          format,
          content,
          missing,
          checked: true,
        }));
      }
      return selectDocuments(tx, scope, subjectId);
    },
  );
  return writtenValue(written);
}

/**
 * The stored documents of an issued invoice or credit note, rendered and stored first if they
 * are not (yet). `model` builds the document model from the frozen data. An e-invoice stored
 * before every text was escaped, that is not well-formed, is repaired first (./repair.ts).
 */
export async function issuedDocuments(
  db: Db,
  renderer: RenderPool,
  scope: TenantScope,
  subjectId: string,
  model: ModelOn,
): Promise<Map<DocumentFormat, StoredDocument>> {
  const rows = await selectDocuments(db, scope, subjectId);
  const documents = rowsToDocuments(rows);
  if (FORMATS.every((f) => documents.has(f))) {
    // Documents stored before every text was escaped are read back once (./repair.ts).
    if (rows.every((r) => r.checked)) return documents;
    const broken = brokenFormats(rows);
    if (broken.length === 0) {
      await markDocumentsChecked(db, scope, subjectId);
      return documents;
    }
    const stored = new Map(rows.map((r) => [r.format, r.content]));
    await repairDocuments(db, renderer, scope, subjectId, stored, broken, () => model(db));
    return rowsToDocuments(await selectDocuments(db, scope, subjectId));
  }
  const rendered = await renderOnce(db, renderer, scope, subjectId, model, true);
  return rowsToDocuments(rendered!);
}

/** One stored document of an issued invoice or credit note (see issuedDocuments). */
export async function issuedDocument(
  db: Db,
  renderer: RenderPool,
  scope: TenantScope,
  subjectId: string,
  format: DocumentFormat,
  model: ModelOn,
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
  model: ModelOn,
): Promise<Set<DocumentFormat>> {
  let rows = await selectDocumentFormats(db, scope, subjectId);
  if (!FORMATS.every((f) => rows.some((r) => r.format === f))) {
    await issuedDocuments(db, renderer, scope, subjectId, model);
    rows = await selectDocumentFormats(db, scope, subjectId);
  }
  return new Set(rows.filter((r) => r.available).map((r) => r.format));
}
