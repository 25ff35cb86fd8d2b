// `npm run conformance [-- --artefacts DIR] [--saxon JAR]`: writes the e-invoice corpus
// (test/documents/einvoice/corpus.ts) as UBL and CII, validates every document against its XML
// Schema and every applicable official rule set (UBL: EN 16931 UBL rules and Peppol BIS 3.0;
// CII: EN 16931 CII rules), prints a table and exits non-zero on any schema error or fatal
// assert. Documents the corpus marks as refused must be reported incomplete by
// missingEinvoiceData and, written anyway, must fail exactly the rules completeness names.
// The documents the API itself issues join them (rows `api/…`): a real server on a fresh
// database (DATABASE_URL's server, else an embedded PostgreSQL) issues invoices and credit
// notes made over HTTP (scripts/conformance/api-scenarios.ts), and their stored UBL and CII are
// validated the same way; their PDFs must embed exactly the CII served (rows `pdf`), and the
// documents the API must refuse must come back 409 einvoice_incomplete naming what they lack.
// Needs java with Saxon-HE (Debian libsaxonhe-java) and xmllint (Debian libxml2-utils).
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { writeCii } from '../src/documents/einvoice/cii.ts';
import type { EinvoiceSyntax } from '../src/documents/einvoice/codes.ts';
import { einvoiceGaps, missingEinvoiceData } from '../src/documents/einvoice/completeness.ts';
import { toSemanticInvoice } from '../src/documents/einvoice/semantic.ts';
import { writeUbl } from '../src/documents/einvoice/ubl.ts';
import fc from 'fast-check';
import { corpus, type CorpusEntry } from '../test/documents/einvoice/corpus.ts';
import { randomModels } from '../test/documents/einvoice/random-models.ts';
import { apiDocuments } from './conformance/api-scenarios.ts';
import { startConformanceServer } from './conformance/api-server.ts';
import { facturXProblems } from './conformance/factur-x.ts';
import { artefactsIn, schemaErrors, schematron, type Assertion } from './conformance/validators.ts';

const root = path.resolve(import.meta.dirname, '..');
const { values: options } = parseArgs({
  options: {
    artefacts: { type: 'string' },
    saxon: { type: 'string', default: '/usr/share/java/Saxon-HE.jar' },
  },
});

/** ../shared/einvoice beside the project, or beside one of its parent directories. */
function findArtefacts(): string {
  if (options.artefacts) return path.resolve(options.artefacts);
  for (let dir = root; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, '..', 'shared', 'einvoice');
    if (existsSync(candidate)) return path.resolve(candidate);
    if (path.dirname(dir) === dir) return path.resolve(root, '../shared/einvoice');
  }
}

interface Document {
  name: string;
  /** `pdf`: the Factur-X check of an API document's PDF. */
  syntax: EinvoiceSyntax | 'pdf';
  kind: 'invoice' | 'credit_note';
  /** The XML validated; null for a PDF and for an e-invoice the API refused (409). */
  file: string | null;
  /** What the schema column says of a row without XML. */
  note?: string;
  /** For refused documents: the rules the corpus expects to fail. */
  expectedRules: string[] | null;
  /** For refused documents: the rules completeness gave as reasons (each must fail). */
  gapRules: string[];
  problems: string[];
}

const started = Date.now();
const artefactsDir = findArtefacts();
const artefacts = artefactsIn(artefactsDir);
if (!existsSync(options.saxon)) throw new Error(`Saxon-HE not found at ${options.saxon}`);
const out = path.join(root, 'data', 'conformance');
await rm(out, { recursive: true, force: true });
for (const dir of ['ubl', 'cii', 'svrl/en-ubl', 'svrl/peppol', 'svrl/en-cii']) {
  await mkdir(path.join(out, dir), { recursive: true });
}

// A seeded sample of random documents (the property tests' generator) joins the corpus, so
// the official rules also see mixes nobody wrote down; the same seed gives the same sample.
const sample: CorpusEntry[] = fc
  .sample(randomModels, { seed: 20261124, numRuns: 16 })
  .filter((model) => missingEinvoiceData(model).length === 0)
  .map((model, i) => ({ name: `random-${String(i + 1).padStart(2, '0')}`, model }));

const documents: Document[] = [];
for (const entry of [...corpus, ...sample]) {
  for (const syntax of ['ubl', 'cii'] as const) {
    const gaps = einvoiceGaps(entry.model, syntax);
    const refused = entry.refused?.[syntax] ?? null;
    const problems: string[] = [];
    const missing = [...new Set(gaps.map((g) => g.field))].sort();
    if (!refused && gaps.length > 0) {
      problems.push(`incomplete: ${gaps.map((g) => `${g.field} (${g.rule})`).join(', ')}`);
    }
    if (refused && missing.join() !== [...refused.missing].sort().join()) {
      problems.push(`missing ${missing.join(', ')}; expected ${refused.missing.join(', ')}`);
    }
    const inv = toSemanticInvoice(entry.model);
    const file = path.join(out, syntax, `${entry.name}.xml`);
    await writeFile(file, syntax === 'ubl' ? writeUbl(inv) : writeCii(inv));
    documents.push({
      name: entry.name,
      syntax,
      kind: entry.model.kind,
      file,
      problems,
      expectedRules: refused?.rules ?? null,
      gapRules: gaps.map((g) => g.rule),
    });
  }
}

const corpusCount = documents.length;
const sameFields = (a: readonly string[], b: readonly string[]) =>
  [...a].sort().join() === [...b].sort().join();
const apiStarted = Date.now();
const server = await startConformanceServer(root, (message) => console.log(message));
const issued = await apiDocuments(server).finally(() => server.close());
const apiSeconds = (Date.now() - apiStarted) / 1000;
for (const doc of issued) {
  for (const syntax of ['ubl', 'cii'] as const) {
    const served = doc.served[syntax];
    const refused = doc.refused[syntax];
    const problems: string[] = [];
    const base = { name: doc.name, syntax, kind: doc.kind, expectedRules: null, gapRules: [] };
    if ('xml' in served) {
      if (refused) problems.push(`served; expected 409 naming ${refused.join(', ')}`);
      const file = path.join(out, syntax, `${doc.name.replace('/', '-')}.xml`);
      await writeFile(file, served.xml);
      documents.push({ ...base, file, problems });
    } else {
      if (!refused) problems.push(`409 einvoice_incomplete: missing ${served.missing.join(', ')}`);
      else if (!sameFields(served.missing, refused))
        problems.push(`missing ${served.missing.join(', ')}; expected ${refused.join(', ')}`);
      documents.push({ ...base, file: null, note: '409', problems });
    }
  }
  const cii = 'xml' in doc.served.cii ? doc.served.cii.xml : null;
  documents.push({
    name: doc.name,
    syntax: 'pdf',
    kind: doc.kind,
    file: null,
    note: cii ? 'factur-x.xml' : 'no attachment',
    expectedRules: null,
    gapRules: [],
    problems: facturXProblems(doc.pdf, cii),
  });
}

const inDir = (syntax: EinvoiceSyntax, kind?: Document['kind']) =>
  documents
    .filter((d) => d.file && d.syntax === syntax && (!kind || d.kind === kind))
    .map((d) => d.file!);
const svrl = (name: string) => path.join(out, 'svrl', name);
const [ublInvoices, ublCreditNotes, cii, enUbl, peppol, enCii] = await Promise.all([
  schemaErrors(artefacts.ublInvoiceXsd, inDir('ubl', 'invoice')),
  schemaErrors(artefacts.ublCreditNoteXsd, inDir('ubl', 'credit_note')),
  schemaErrors(artefacts.ciiXsd, inDir('cii')),
  schematron(options.saxon, artefacts.enUblXslt, path.join(out, 'ubl'), svrl('en-ubl')),
  schematron(options.saxon, artefacts.peppolUblXslt, path.join(out, 'ubl'), svrl('peppol')),
  schematron(options.saxon, artefacts.enCiiXslt, path.join(out, 'cii'), svrl('en-cii')),
]);

const rows: string[][] = [];
const warningTotals = new Map<string, number>();
let fatalTotal = 0;
let schemaTotal = 0;
let failures = 0;
const count = (ids: string[]) =>
  [...new Set(ids)].map((id) => `${id}×${ids.filter((i) => i === id).length}`).join(' ');
for (const doc of documents) {
  if (!doc.file) {
    if (doc.problems.length > 0) failures += 1;
    const result = doc.problems.length > 0 ? 'FAIL' : doc.syntax === 'pdf' ? 'ok' : 'refused';
    rows.push([doc.name, doc.syntax, doc.note ?? '-', '-', '-', result]);
    continue;
  }
  const base = path.basename(doc.file);
  const schema = (ublInvoices.get(doc.file) ?? ublCreditNotes.get(doc.file) ?? cii.get(doc.file))!;
  const asserts: Assertion[] =
    doc.syntax === 'ubl' ? [...enUbl.get(base)!, ...peppol.get(base)!] : enCii.get(base)!;
  const fatal = [...new Set(asserts.filter((a) => a.flag === 'fatal').map((a) => a.id))];
  const warnings = asserts.filter((a) => a.flag !== 'fatal').map((a) => a.id);
  let status = 'ok';
  if (doc.expectedRules) {
    // A refused document must fail, and on the rules completeness gave as the reason.
    const unmet = [...new Set([...doc.expectedRules, ...doc.gapRules])].filter(
      (rule) => !fatal.includes(rule),
    );
    const unexpected = fatal.filter((rule) => !doc.expectedRules!.includes(rule));
    if (unmet.length > 0) doc.problems.push(`expected rules did not fire: ${unmet.join(', ')}`);
    if (unexpected.length > 0)
      doc.problems.push(`rules completeness did not name: ${unexpected.join(', ')}`);
    if (schema.length > 0) doc.problems.push(`schema: ${schema[0]}`);
    status = 'refused';
  } else {
    fatalTotal += fatal.length;
    schemaTotal += schema.length;
    for (const id of warnings) warningTotals.set(id, (warningTotals.get(id) ?? 0) + 1);
    if (schema.length > 0) doc.problems.push(`schema: ${schema.join(' | ')}`);
    for (const a of asserts.filter((a) => a.flag === 'fatal'))
      doc.problems.push(`${a.id}: ${a.text}`);
  }
  if (doc.problems.length > 0) {
    failures += 1;
    status = 'FAIL';
  }
  rows.push([
    doc.name,
    doc.syntax,
    schema.length === 0 ? 'ok' : `${schema.length} errors`,
    fatal.join(' ') || '0',
    count(warnings) || '0',
    status,
  ]);
}

const header = ['document', 'syntax', 'schema', 'fatal asserts', 'warnings by rule', 'result'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) =>
  cells
    .map((c, i) => c.padEnd(widths[i]!))
    .join('  ')
    .trimEnd();
console.log(`artefacts: ${artefactsDir}`);
console.log(line(header));
console.log(line(widths.map((w) => '-'.repeat(w))));
for (const row of rows) console.log(line(row));
for (const doc of documents.filter((d) => d.problems.length > 0)) {
  console.log(`\n${doc.name} (${doc.syntax}):\n  ${doc.problems.join('\n  ')}`);
}
const corpusRefused = documents.slice(0, corpusCount).filter((d) => d.expectedRules).length;
const apiXml = documents.slice(corpusCount).filter((d) => d.file).length;
const apiRefused = documents.slice(corpusCount).filter((d) => d.syntax !== 'pdf' && !d.file).length;
console.log(
  `\n${corpusCount} corpus documents (${corpusCount - corpusRefused} valid, ${corpusRefused} refused on purpose); ` +
    `${issued.length} issued through the API in ${apiSeconds.toFixed(1)} s (${apiXml} e-invoices validated, ${apiRefused} refused with 409, ${issued.length} PDFs checked): ` +
    `${schemaTotal} schema errors, ${fatalTotal} fatal asserts, warnings ${[...warningTotals].map(([id, n]) => `${id}×${n}`).join(' ') || 'none'}; ` +
    `${failures} failed; ${((Date.now() - started) / 1000).toFixed(1)} s`,
);
console.log(`${documents.length - failures} rows passed, ${failures} failed`);
process.exit(failures > 0 ? 1 : 0);
