// `npm run test:pdf`: the worked examples checked with independent PDF tools — poppler
// (pdftotext, pdffonts, pdfinfo, pdfdetach; Debian poppler-utils) and qpdf (Debian qpdf).
// Not part of `npm test`, which needs nothing but `npm ci`.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { EXAMPLES_DIR, FACTUR_X_EXAMPLE, writeExamples } from '../../scripts/documents-examples.ts';
import { sampleCii, WORKED_EXAMPLES } from './fixtures.ts';

const run = promisify(execFile);

async function tool(command: string, args: string[]) {
  try {
    return await run(command, args, { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: unknown; stdout?: string; stderr?: string };
    if (code === 'ENOENT') throw new Error(`${command} is not installed (poppler-utils, qpdf)`);
    throw new Error(`${command} ${args.join(' ')} failed (${String(code)}): ${stderr}${stdout}`);
  }
}

const EXPECTED_TEXT: Record<string, string[]> = {
  'de-reverse-charge': [
    'Rechnung',
    'Müller GmbH',
    'Gruber & Söhne Handels GmbH',
    'Steuerschuldnerschaft des Leistungsempfängers',
    '4.714,56 €',
  ],
  'pl-invoice': [
    'Faktura',
    'Zakład Łódź Sp. z o.o.',
    'ŁłŚśĄąĘęŻżŹźĆćŃńÓó',
    'Dvořák, Žižkov, Říčany',
    'Győr, Ősi, Űrhajó',
  ],
  'en-greek-cyrillic-buyer': [
    'Αθήνα Εμπορική Α.Ε.',
    'Λεωφόρος Βασιλίσσης Σοφίας 10',
    'Консультации по внедрению — Москва',
    '\uFFFD',
  ],
  'en-250-lines': ['250. Printer toner, cyan', 'Page 10 of 10'],
  'fr-credit-note': [
    'Avoir',
    'Rectifie la facture INV-000211 du 30/10/2026',
    'Boulangerie Dupré SARL',
  ],
  'nl-draft': ['Factuur', 'CONCEPT', 'Concept – geen geldige factuur'],
  'en-jpy': ['¥594,000'],
  'en-kwd': ['KWD 762.500'],
  'es-credit-note': ['Factura rectificativa', 'Rectifica la factura INV-000211 del 30/10/2026'],
  'it-intra-community': ['Fattura', 'Cessione intracomunitaria non imponibile', 'Αθήνα'],
};

const STANDARD_14 = /Helvetica|Times|Courier|Symbol|ZapfDingbats/;

describe('worked examples, checked by poppler and qpdf', () => {
  let files: string[] = [];
  before(async () => {
    files = await writeExamples();
  });

  it('renders every worked example', () => {
    assert.deepEqual(
      files.map((file) => path.basename(file, '.pdf')),
      Object.keys(WORKED_EXAMPLES),
    );
  });

  it('pdftotext finds the names exactly', async () => {
    for (const file of files) {
      const name = path.basename(file, '.pdf');
      const { stdout } = await tool('pdftotext', ['-enc', 'UTF-8', file, '-']);
      const text = stdout.replace(/[\u00a0\u202f]/g, ' ');
      for (const expected of EXPECTED_TEXT[name] ?? []) {
        assert.ok(text.includes(expected), `${name}: ${expected}`);
      }
    }
  });

  it('pdffonts lists only embedded fonts, none of them Type 1 or standard 14', async () => {
    for (const file of files) {
      const { stdout } = await tool('pdffonts', [file]);
      const rows = stdout.trim().split('\n').slice(2);
      assert.ok(rows.length >= 1, file);
      for (const row of rows) {
        // name, type (may contain spaces), encoding, emb, sub, uni, object, id
        const match = /^(\S+)\s+(.+?)\s+(\S+)\s+(yes|no)\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+$/.exec(
          row,
        );
        assert.ok(match, `${file}: ${row}`);
        const [, fontName, type, , embedded] = match;
        assert.equal(embedded, 'yes', `${file}: ${row}`);
        assert.equal(type, 'CID TrueType', `${file}: ${row}`);
        assert.doesNotMatch(fontName!, STANDARD_14);
      }
    }
  });

  it('pdfinfo reads PDF 1.7 with XMP declaring PDF/A-3b', async () => {
    for (const file of files) {
      const { stdout: info } = await tool('pdfinfo', [file]);
      assert.match(info, /PDF version:\s+1\.7/);
      assert.match(info, /CreationDate:\s+\w{3} \w{3} \d+ \d\d:\d\d:\d\d 2026/);
      const { stdout: xmp } = await tool('pdfinfo', ['-meta', file]);
      assert.match(xmp, /<pdfaid:part>3<\/pdfaid:part>/, file);
      assert.match(xmp, /<pdfaid:conformance>B<\/pdfaid:conformance>/, file);
    }
  });

  describe('Factur-X', () => {
    let dir = '';
    before(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'factur-x-'));
    });
    after(() => rm(dir, { recursive: true, force: true }));

    it('pdfdetach lists factur-x.xml and extracts the XML as given', async () => {
      const file = path.join(EXAMPLES_DIR, `${FACTUR_X_EXAMPLE}.pdf`);
      const { stdout } = await tool('pdfdetach', ['-list', file]);
      assert.match(stdout, /^1 embedded files\n1: factur-x\.xml$/m);
      const saved = path.join(dir, 'factur-x.xml');
      await tool('pdfdetach', ['-save', '1', '-o', saved, file]);
      const model = WORKED_EXAMPLES[FACTUR_X_EXAMPLE]!;
      assert.equal(await readFile(saved, 'utf8'), sampleCii(model));
      const { stdout: xmp } = await tool('pdfinfo', ['-meta', file]);
      assert.match(xmp, /<fx:ConformanceLevel>EN 16931<\/fx:ConformanceLevel>/);
    });

    it('has no attachment in the other examples', async () => {
      for (const file of files.filter((f) => !f.includes(FACTUR_X_EXAMPLE))) {
        const { stdout } = await tool('pdfdetach', ['-list', file]);
        assert.match(stdout, /^0 embedded files/, file);
      }
    });
  });

  it('qpdf --check finds no errors and no warnings', async () => {
    for (const file of files) {
      // qpdf exits 0 when clean, 2 on errors and 3 on warnings: tool() fails on both.
      const { stdout } = await tool('qpdf', ['--check', file]);
      assert.match(stdout, /No syntax or stream encoding errors found/, file);
    }
  });
});
