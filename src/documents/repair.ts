// Repairing stored e-invoices that are not well-formed XML. Documents stored before every text
// was escaped could carry a name such as `Smith &e; Ltd` as written, which no XML parser reads;
// the CII of such a document is also the PDF's factur-x.xml (./issued.ts attaches exactly the
// CII text, and both were stored together). Such a document is rendered again from the data
// frozen at issue, as every document is, and the good copy replaces the broken one: it says
// exactly what the record says, now escaped; the record itself does not change. The replaced
// row keeps when it was replaced and the SHA-256 of what it replaced (docs/einvoices.md).
import { createHash } from 'node:crypto';
import { SaxesParser } from 'saxes';
import type { Db } from '../db/pool.ts';
import { unitOfWork, writtenValue } from '../db/unit-of-work.ts';
import { operator, type TenantScope } from '../tenancy.ts';
import type { RenderedDocuments } from './issued.ts';
import type { DocumentModel } from './model.ts';
import type { RenderPool } from './render-pool.ts';
import {
  replaceDocument,
  selectDocuments,
  selectStoredEinvoices,
  type DocumentFormat,
  type NewDocument,
} from './store.ts';

const FORMATS: readonly DocumentFormat[] = ['pdf', 'ubl', 'cii'];

/**
 * Which stored documents must be replaced: each e-invoice that is not well-formed, and the PDF
 * with it when that is the CII (its factur-x.xml is the same text).
 */
export function brokenFormats(
  stored: Iterable<{ format: DocumentFormat; content: Buffer | null }>,
): DocumentFormat[] {
  const broken = new Set<DocumentFormat>();
  for (const { format, content } of stored) {
    if (format === 'pdf' || content === null || isWellFormed(content.toString('utf8'))) continue;
    broken.add(format);
    if (format === 'cii') broken.add('pdf');
  }
  return FORMATS.filter((f) => broken.has(f));
}

/** The row to store for one format of rendered documents: its bytes and SHA-256, or what it lacks. */
export function documentRow(docs: RenderedDocuments, format: DocumentFormat): NewDocument {
  let content: Buffer | null;
  let missing: string[] | null = null;
  if (format === 'pdf') content = Buffer.from(docs.pdf);
  else {
    const outcome = docs[format];
    content = 'xml' in outcome ? Buffer.from(outcome.xml, 'utf8') : null;
    if (!('xml' in outcome)) missing = outcome.missing;
  }
  const sha256 = content && createHash('sha256').update(content).digest();
  return { format, content, missing, sha256 };
}

/**
 * Renders the subject's documents again from `model` (the frozen data) and replaces the
 * `broken` ones (see brokenFormats) in one transaction; returns the formats it replaced (none
 * when another repair came first). An e-invoice the current rules find incomplete is stored as
 * what it lacks, as it would be were the subject issued now.
 */
export async function repairDocuments(
  db: Db,
  renderer: RenderPool,
  scope: TenantScope,
  subjectId: string,
  stored: ReadonlyMap<DocumentFormat, Buffer | null>,
  broken: readonly DocumentFormat[],
  model: () => Promise<DocumentModel>,
): Promise<DocumentFormat[]> {
  if (broken.length === 0) return [];
  const docs = await renderer.renderIssued(await model());
  const written = await unitOfWork(
    db,
    { actor: operator(scope.tenantId, scope.environment) },
    async ({ tx }) => {
      const replaced: DocumentFormat[] = [];
      for (const format of broken) {
        const old = stored.get(format);
        if (!old) continue;
        if (await replaceDocument(tx, scope, subjectId, documentRow(docs, format), old)) {
          replaced.push(format);
        }
      }
      return replaced;
    },
  );
  return writtenValue(written);
}

/** What a repair run found and did, per format; a dry run replaces nothing. */
export interface RepairCounts {
  /** Issued invoices and credit notes whose stored documents were read. */
  subjects: number;
  /** Stored UBL and CII documents read. */
  einvoices: number;
  /** Documents that must be replaced (an e-invoice not well-formed, the PDF with its CII). */
  broken: Record<DocumentFormat, number>;
  /** Documents replaced. */
  repaired: Record<DocumentFormat, number>;
}

const PAGE = 200;

/**
 * Reads every stored e-invoice of the tenant's environments and repairs each subject found
 * broken (see repairDocuments); `modelOf` builds a subject's model from its frozen data.
 */
export async function repairStoredDocuments(
  db: Db,
  renderer: RenderPool,
  scopes: readonly TenantScope[],
  modelOf: (scope: TenantScope, subjectId: string) => Promise<DocumentModel>,
  options: { dryRun: boolean },
): Promise<RepairCounts> {
  const zero = (): Record<DocumentFormat, number> => ({ pdf: 0, ubl: 0, cii: 0 });
  const counts: RepairCounts = { subjects: 0, einvoices: 0, broken: zero(), repaired: zero() };
  for (const scope of scopes) {
    let after: string | null = '';
    while (after !== null) {
      const page = await selectStoredEinvoices(db, scope, after, PAGE);
      after = page.next;
      const bySubject = Map.groupBy(page.einvoices, (e) => e.subjectId);
      counts.einvoices += page.einvoices.length;
      counts.subjects += new Set(page.einvoices.map((e) => e.subjectId)).size;
      for (const [subjectId, einvoices] of bySubject) {
        const broken = brokenFormats(einvoices);
        if (broken.length === 0) continue;
        for (const format of broken) counts.broken[format]++;
        if (options.dryRun) continue;
        // The PDF's bytes are read only for the subjects that need them.
        const rows = await selectDocuments(db, scope, subjectId);
        const stored = new Map(rows.map((r) => [r.format, r.content]));
        const model = () => modelOf(scope, subjectId);
        const replaced = await repairDocuments(
          db,
          renderer,
          scope,
          subjectId,
          stored,
          brokenFormats(rows),
          model,
        );
        for (const format of replaced) counts.repaired[format]++;
      }
    }
  }
  return counts;
}

/**
 * Whether `xml` is well-formed XML 1.0 with namespaces, as a strict parser reads it: how a
 * document stored before every text was escaped is told from a good one. It is here, not
 * beside the XML builder (./einvoice/xml.ts), so that the API's process, which reads stored
 * documents but writes no XML, does not load the builder: some 175 modules, a fifth of what
 * the server loads at start.
 */
export function isWellFormed(xml: string): boolean {
  const parser = new SaxesParser({ xmlns: true });
  // The first error ends the reading: the handler throws, and that is the answer.
  parser.on('error', (error) => {
    throw error;
  });
  try {
    parser.write(xml).close();
    return true;
  } catch {
    return false;
  }
}
