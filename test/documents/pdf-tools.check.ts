// `npm run test:pdf`: the worked examples checked with independent PDF tools — poppler
// (pdftotext, pdffonts, pdfinfo, pdfdetach; Debian poppler-utils) and qpdf (Debian qpdf) —
// and documents holding hostile text checked with xmllint (Debian libxml2-utils).
// Not part of `npm test`, which needs nothing but `npm ci`.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { EXAMPLES_DIR, FACTUR_X_EXAMPLE, writeExamples } from '../../scripts/documents-examples.ts';
import { renderIssuedDocuments } from '../../src/documents/issued.ts';
import type { DocumentModel } from '../../src/documents/model.ts';
import { germanReverseCharge, sampleCii, WORKED_EXAMPLES } from './fixtures.ts';

const run = promisify(execFile);

async function tool(command: string, args: string[]) {
  try {
    return await run(command, args, { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: unknown; stdout?: string; stderr?: string };
    if (code === 'ENOENT') {
      throw new Error(`${command} is not installed (poppler-utils, qpdf, libxml2-utils)`);
    }
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
      // The issue time of the example (the worked examples are issued in 2026 and 2027).
      assert.match(info, /CreationDate:\s+\w{3} \w{3}\s+\d+ \d\d:\d\d:\d\d 20\d\d/, file);
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

/** Text typed by third parties: references, markup, a control character, CR LF, a formula. */
const HOSTILE = {
  seller: 'Müller &e; GmbH <x>',
  buyer: 'Smith &e; Ltd "quoted" &lt;b&gt;',
  street: 'Tom &#1; Road\u0001',
  line: 'Beratung &amp; Migration\r\nzweite Zeile',
  note: '=Danke &e; ]]>',
};

function hostileModel(): DocumentModel {
  const model = germanReverseCharge;
  return {
    ...model,
    seller: { ...model.seller, name: HOSTILE.seller },
    buyer: {
      ...model.buyer,
      name: HOSTILE.buyer,
      electronicAddress: { scheme: '9914', value: 'ATU12345678' },
      address: { ...model.buyer.address!, line1: HOSTILE.street },
    },
    note: HOSTILE.note,
    lines: model.lines.map((line, i) => (i === 0 ? { ...line, description: HOSTILE.line } : line)),
  };
}

describe('hostile text, checked by xmllint and poppler', () => {
  let dir = '';
  const file = (name: string) => path.join(dir, name);
  const xpath = async (name: string, expression: string) =>
    (await tool('xmllint', ['--xpath', `string(${expression})`, file(name)])).stdout.replace(
      /\n$/,
      '',
    );
  const local = (...names: string[]) => names.map((n) => `*[local-name()='${n}']`).join('/');

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'hostile-'));
    const docs = await renderIssuedDocuments(hostileModel());
    assert.ok('xml' in docs.ubl && 'xml' in docs.cii, 'both e-invoices written');
    await writeFile(file('ubl.xml'), docs.ubl.xml);
    await writeFile(file('cii.xml'), docs.cii.xml);
    await writeFile(file('invoice.pdf'), docs.pdf);
    await tool('pdfdetach', ['-save', '1', '-o', file('factur-x.xml'), file('invoice.pdf')]);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('xmllint --noout reads the UBL, the CII and the embedded factur-x.xml', async () => {
    for (const name of ['ubl.xml', 'cii.xml', 'factur-x.xml']) {
      const { stdout, stderr } = await tool('xmllint', ['--noout', file(name)]);
      assert.equal(stdout + stderr, '', name);
    }
    assert.equal(
      await readFile(file('factur-x.xml'), 'utf8'),
      await readFile(file('cii.xml'), 'utf8'),
    );
  });

  it('xmllint reads back each text as typed, U+FFFD for what XML cannot carry', async () => {
    const party = (role: string) =>
      `//${local(role, 'Party', 'PartyLegalEntity', 'RegistrationName')}`;
    assert.equal(await xpath('ubl.xml', party('AccountingSupplierParty')), HOSTILE.seller);
    assert.equal(await xpath('ubl.xml', party('AccountingCustomerParty')), HOSTILE.buyer);
    assert.equal(
      await xpath(
        'ubl.xml',
        `//${local('AccountingCustomerParty', 'Party', 'PostalAddress', 'StreetName')}`,
      ),
      'Tom &#1; Road\uFFFD',
    );
    assert.equal(
      await xpath('ubl.xml', `(//${local('InvoiceLine', 'Item', 'Name')})[1]`),
      HOSTILE.line,
    );
    assert.equal(await xpath('ubl.xml', `/*/${local('Note')}`), HOSTILE.note);
    for (const name of ['cii.xml', 'factur-x.xml']) {
      assert.equal(await xpath(name, `//${local('SellerTradeParty', 'Name')}`), HOSTILE.seller);
      assert.equal(await xpath(name, `//${local('BuyerTradeParty', 'Name')}`), HOSTILE.buyer);
      assert.equal(
        await xpath(name, `//${local('BuyerTradeParty', 'PostalTradeAddress', 'LineOne')}`),
        'Tom &#1; Road\uFFFD',
      );
    }
  });

  it('pdftotext shows the same text', async () => {
    const { stdout } = await tool('pdftotext', ['-enc', 'UTF-8', file('invoice.pdf'), '-']);
    const text = stdout.replace(/\s+/g, ' ');
    for (const expected of [HOSTILE.seller, HOSTILE.buyer, 'Tom &#1; Road\uFFFD', HOSTILE.note]) {
      assert.ok(text.includes(expected), expected);
    }
    assert.ok(text.includes('Beratung &amp; Migration'));
  });
});
