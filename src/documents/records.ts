// Issued documents as records (stored for ./service.ts): each issued invoice or credit note has
// its PDF and e-invoices rendered once from the data frozen at issue, stored, and served
// byte-identical ever after.
// Rendering happens off the event loop (the render pool) and outside any transaction; it is
// asked for right after the issue commits, and again by the first reader should the process
// have stopped in between. Rendering is deterministic, so either gives the same bytes, and of
// two renders racing only the first is stored.
import { createHash } from 'node:crypto';
import type { Db } from '../db/pool.ts';
import { unitOfWork, writtenValue } from '../db/unit-of-work.ts';
import { operator, type TenantScope } from '../tenancy.ts';
import type { RenderedDocuments } from './issued.ts';
import type { DocumentModel } from './model.ts';
import type { RenderPool } from './render-pool.ts';
import { brokenFormats, repairDocuments } from './repair.ts';
import {
  insertDocuments,
  markDocumentsChecked,
  selectDocumentFormats,
  selectDocuments,
  type DocumentFormat,
  type DocumentRow,
  type NewDocument,
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

function stored(docs: RenderedDocuments): Map<DocumentFormat, StoredDocument> {
  const map = new Map<DocumentFormat, StoredDocument>([
    ['pdf', { content: Buffer.from(docs.pdf) }],
  ]);
  for (const format of ['ubl', 'cii'] as const) {
    const outcome = docs[format];
    map.set(
      format,
      'xml' in outcome
        ? { content: Buffer.from(outcome.xml, 'utf8') }
        : { missing: outcome.missing },
    );
  }
  return map;
}

/** Stores what was rendered, unless a render that came first stored it: then that is kept. */
async function store(
  db: Db,
  scope: TenantScope,
  subjectId: string,
  docs: RenderedDocuments,
): Promise<Map<DocumentFormat, StoredDocument>> {
  const documents = stored(docs);
  const row = (format: DocumentFormat): NewDocument => {
    const doc = documents.get(format)!;
    const content = 'content' in doc ? doc.content : null;
    return {
      format,
      content,
      missing: 'missing' in doc ? doc.missing : null,
      sha256: content && sha256(content),
    };
  };
  const rows = [row('pdf'), row('ubl'), row('cii')] as const;
  const inserted = await unitOfWork(
    db,
    { actor: operator(scope.tenantId, scope.environment) },
    ({ tx }) => insertDocuments(tx, scope, subjectId, rows),
  );
  if (writtenValue(inserted).length === FORMATS.length) return documents;
  return rowsToDocuments(await selectDocuments(db, scope, subjectId));
}

/**
 * Renders and stores the documents of a subject just issued (an invoice) or created (a credit
 * note), from the model of what was frozen, before the write is answered.
 */
export async function renderIssued(
  db: Db,
  renderer: RenderPool,
  scope: TenantScope,
  subjectId: string,
  model: DocumentModel,
): Promise<void> {
  await store(db, scope, subjectId, await renderer.renderIssued(model));
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
  model: () => Promise<DocumentModel>,
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
    await repairDocuments(db, renderer, scope, subjectId, stored, broken, model);
    return rowsToDocuments(await selectDocuments(db, scope, subjectId));
  }
  return store(db, scope, subjectId, await renderer.renderIssued(await model()));
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
