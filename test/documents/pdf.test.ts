import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { formatAmount, formatPeriod } from '../../src/documents/i18n.ts';
import { LOCALES, type DocumentModel } from '../../src/documents/model.ts';
import { renderPdf } from '../../src/documents/pdf/render.ts';
import {
  creditNote,
  dinarInvoice,
  draftInvoice,
  germanReverseCharge,
  greekCyrillicBuyer,
  longInvoice,
  polishInvoice,
  sampleCii,
  subscriptionInvoice,
  WORKED_EXAMPLES,
} from './fixtures.ts';
import { pageTexts, PdfFile } from './pdf-reader.ts';

describe('PDF text', () => {
  it('prints Polish, Greek, Cyrillic and German names exactly as sent', async () => {
    const polish = (await pageTexts(await renderPdf(polishInvoice))).join('\n');
    assert.match(polish, /Zakład Łódź Sp\. z o\.o\./);
    assert.match(polish, /ŁłŚśĄąĘęŻżŹźĆćŃńÓó/);
    assert.match(polish, /Dvořák, Žižkov, Říčany/);
    assert.match(polish, /Győr, Ősi, Űrhajó/);
    assert.match(polish, /^Faktura/);
    const greek = (await pageTexts(await renderPdf(greekCyrillicBuyer))).join('\n');
    assert.match(greek, /Αθήνα Εμπορική Α\.Ε\./);
    assert.match(greek, /106 74 Αθήνα/);
    assert.match(greek, /Консультации по внедрению — Москва/);
    assert.match(greek, /Müller GmbH/);
  });

  it('writes a German document in German with German number and date formats', async () => {
    const text = (await pageTexts(await renderPdf(germanReverseCharge))).join('\n');
    assert.match(text, /^Rechnung/);
    assert.match(text, /Ausstellungsdatum 24\.11\.2026/);
    assert.match(text, /Leistungszeitraum 01\.11\.2026 – 30\.11\.2026/);
    assert.match(text, /1\.234,56 €/);
    assert.match(text, /Zahlbetrag 4\.714,56 €/);
    assert.match(text, /IBAN DE89 3704 0044 0532 0130 00/);
  });

  it('shows reverse charge at 0 % with the legal text, never the domestic rate', async () => {
    const text = (await pageTexts(await renderPdf(germanReverseCharge))).join('\n');
    assert.match(text, /Steuerschuldnerschaft des Leistungsempfängers\n/);
    assert.match(text, /gemäß Art\.\s+196 MwStSystRL/);
    assert.match(text, /0 % 4\.714,56 € 0,00 €/);
    assert.doesNotMatch(text, /19 %/);
  });

  it('names the corrected invoice and the reason on a credit note', async () => {
    const text = (await pageTexts(await renderPdf(creditNote))).join('\n');
    assert.match(text, /^Avoir/);
    assert.match(text, /Rectifie la facture INV-000211 du 30\/10\/2026/);
    assert.match(text, /Motif : Modification de la commande/);
    assert.match(text, /Montant de l’avoir 540,00 €/);
  });

  it('replaces what the fonts cannot draw by U+FFFD, never by .notdef', async () => {
    const pdf = await renderPdf(greekCyrillicBuyer);
    const text = (await pageTexts(pdf)).join('\n');
    // One placeholder per character (grapheme): 7 kana/kanji, 5 Arabic letters, 1 emoji.
    assert.match(text, /Translation into Japanese \uFFFD{7} and\s+Arabic \uFFFD{5} \uFFFD/);
    assert.doesNotMatch(text, /[株テ👍]/u);
    // Glyph 0 is .notdef: no text-showing operator may use it (PDF/A-2/3, 6.2.11.8).
    const file = new PdfFile(pdf);
    const content = file
      .find(/\/Length/)
      .filter((o) => o.stream && /BT[\s\S]*ET/.test(o.stream.toString('latin1')));
    assert.ok(content.length > 0);
    for (const { stream } of content) {
      for (const [, hex] of stream!.toString('latin1').matchAll(/<([0-9a-f]+)>/g)) {
        for (let i = 0; i < hex!.length; i += 4) assert.notEqual(hex!.slice(i, i + 4), '0000');
      }
    }
  });
});

describe('PDF/A-3b', () => {
  it('embeds every font and uses none of the standard 14', async () => {
    const file = new PdfFile(await renderPdf(germanReverseCharge));
    const fonts = file.find(/\/Type \/Font\b/);
    assert.ok(fonts.length >= 2);
    for (const { dictionary } of fonts) {
      assert.match(dictionary, /\/Subtype \/(Type0|CIDFontType2)/);
      assert.doesNotMatch(dictionary, /Helvetica|Times|Courier|Symbol|ZapfDingbats/);
    }
    const descriptors = file.find(/\/Type \/FontDescriptor/);
    assert.equal(descriptors.length, 2);
    for (const { dictionary } of descriptors) assert.match(dictionary, /\/FontFile2 \d+ 0 R/);
    assert.deepEqual(
      descriptors.map((d) => /\/FontName \/[A-Z]{6}\+([\w-]+)/.exec(d.dictionary)?.[1]).sort(),
      ['NotoSans-Bold', 'NotoSans-Regular'],
    );
  });

  it('declares PDF/A-3b in the XMP and has an sRGB output intent', async () => {
    const file = new PdfFile(await renderPdf(polishInvoice));
    assert.match(file.xmp, /<pdfaid:part>3<\/pdfaid:part>/);
    assert.match(file.xmp, /<pdfaid:conformance>B<\/pdfaid:conformance>/);
    assert.match(file.xmp, /<xmp:CreateDate>2026-11-24T10:15:00Z<\/xmp:CreateDate>/);
    assert.match(file.xmp, /<xmp:ModifyDate>2026-11-24T10:15:00Z<\/xmp:ModifyDate>/);
    assert.match(file.xmp, /<rdf:li xml:lang="x-default">Faktura FV\/2026\/11\/0007<\/rdf:li>/);
    assert.doesNotMatch(file.xmp, /factur-x/i);
    const [intent] = file.refs(file.catalog, 'OutputIntents');
    const dictionary = file.object(intent!).dictionary;
    assert.match(dictionary, /\/S \/GTS_PDFA1/);
    assert.match(dictionary, /sRGB IEC61966-2\.1/);
    assert.match(file.bytes.subarray(0, 9).toString('latin1'), /^%PDF-1\.7\n/);
  });

  it('embeds the CII XML as factur-x.xml with AFRelationship /Alternative, listed in /AF', async () => {
    const xml = sampleCii(germanReverseCharge);
    const file = new PdfFile(await renderPdf(germanReverseCharge, { facturX: xml }));
    const af = file.refs(file.catalog, 'AF');
    assert.equal(af.length, 1);
    const spec = file.object(af[0]!).dictionary;
    assert.match(spec, /\/Type \/Filespec/);
    assert.match(spec, /\/F \(factur-x\.xml\)/);
    assert.match(spec, /\/UF \(factur-x\.xml\)/);
    assert.match(spec, /\/AFRelationship \/Alternative/);
    const embedded = file.object(/\/EF <<\s*\/F (\d+ 0 R)/.exec(spec)![1]!);
    assert.match(embedded.dictionary, /\/Type \/EmbeddedFile/);
    assert.match(embedded.dictionary, /\/Subtype \/text#2Fxml/i);
    assert.match(embedded.dictionary, /\/ModDate \(D:20261124101500Z\)/);
    assert.equal(embedded.stream!.toString('utf8'), xml);
    assert.match(
      file.object(/\/Names (\d+ 0 R)/.exec(file.catalog)![1]!).dictionary,
      /EmbeddedFiles/,
    );
    assert.match(file.xmp, /xmlns:fx="urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#"/);
    assert.match(file.xmp, /<fx:DocumentType>INVOICE<\/fx:DocumentType>/);
    assert.match(file.xmp, /<fx:DocumentFileName>factur-x\.xml<\/fx:DocumentFileName>/);
    assert.match(file.xmp, /<fx:Version>1\.0<\/fx:Version>/);
    assert.match(file.xmp, /<fx:ConformanceLevel>EN 16931<\/fx:ConformanceLevel>/);
    assert.match(file.xmp, /<pdfaSchema:prefix>fx<\/pdfaSchema:prefix>/);
  });

  it('has no attachment without Factur-X, and never makes a draft an e-invoice', async () => {
    const file = new PdfFile(await renderPdf(germanReverseCharge));
    assert.doesNotMatch(file.catalog, /\/AF\b/);
    assert.equal(file.find(/\/Type \/EmbeddedFile/).length, 0);
    await assert.rejects(renderPdf(draftInvoice, { facturX: '<x/>' }), RangeError);
  });
});

describe('determinism', () => {
  it('gives byte-identical output for the same model', async () => {
    for (const model of [germanReverseCharge, longInvoice, draftInvoice]) {
      const first = await renderPdf(model);
      const second = await renderPdf(structuredClone(model));
      assert.ok(first.equals(second), model.id);
    }
    const xml = sampleCii(polishInvoice);
    assert.ok(
      (await renderPdf(polishInvoice, { facturX: xml })).equals(
        await renderPdf(polishInvoice, { facturX: xml }),
      ),
    );
  });

  it('dates the file by the moment of issue and derives its /ID from the model', async () => {
    const file = new PdfFile(await renderPdf(polishInvoice));
    const info = file.object(/\/Info (\d+ 0 R)/.exec(file.trailer)![1]!).dictionary;
    assert.equal(
      file.object(/\/CreationDate (\d+ 0 R)/.exec(info)![1]!).dictionary.trim(),
      '(D:20261124101500Z)',
    );
    assert.equal(
      file.object(/\/ModDate (\d+ 0 R)/.exec(info)![1]!).dictionary.trim(),
      '(D:20261124101500Z)',
    );
    const [id] = file.fileIds;
    const changed: DocumentModel = { ...polishInvoice, purchaseOrder: 'PO-1' };
    assert.notEqual(new PdfFile(await renderPdf(changed)).fileIds[0], id);
    assert.equal(new PdfFile(await renderPdf(structuredClone(polishInvoice))).fileIds[0], id);
    assert.equal(id!.length, 32);
    assert.notEqual(id, createHash('md5').update('').digest('hex'));
  });
});

describe('layout', () => {
  it('marks a draft as such on every page, and an issued document nowhere', async () => {
    const draft: DocumentModel = { ...longInvoice, draft: true, number: null, locale: 'nl' };
    const pages = await pageTexts(await renderPdf(draft));
    assert.ok(pages.length > 5);
    pages.forEach((text, i) => {
      assert.match(text, /CONCEPT[\s\S]*CONCEPT/, `page ${i + 1}`);
    });
    assert.match(pages[0]!, /Concept – geen geldige factuur/);
    for (const text of await pageTexts(await renderPdf({ ...longInvoice, locale: 'nl' }))) {
      assert.doesNotMatch(text, /CONCEPT|Concept/);
    }
  });

  it('paginates 250 lines: each once, in order, under a header row on every page', async () => {
    const pages = await pageTexts(await renderPdf(longInvoice));
    const all = pages.join('\n');
    const numbers = [...all.matchAll(/^(\d+)\. /gm)].map((m) => Number(m[1]));
    assert.deepEqual(
      numbers,
      Array.from({ length: 250 }, (_, i) => i + 1),
    );
    pages.forEach((text, i) => {
      assert.match(text, new RegExp(`Page ${i + 1} of ${pages.length}$`));
      if (/^\d+\. /m.test(text)) assert.match(text, /Description Qty Unit Unit price VAT Amount/);
      if (i > 0) assert.match(text, /Müller GmbH\s*Invoice INV-000250/);
    });
    assert.match(pages.at(-1)!, /Amount due €304,618\.93/);
  });

  it('prints totals that add up, in every worked example', async () => {
    for (const [name, model] of Object.entries(WORKED_EXAMPLES)) {
      const text = (await pageTexts(await renderPdf(model))).join('\n');
      const printed = (amount: number) =>
        formatAmount(amount, model.currency, model.locale).replace(/[\u00a0\u202f]/g, ' ');
      const { totals } = model;
      // The printed figures are the model's, and the model's add up.
      for (const amount of [totals.totalExcludingTax, totals.tax, totals.total, totals.amountDue]) {
        assert.ok(text.includes(printed(amount)), `${name}: ${printed(amount)}`);
      }
      for (const line of model.lines)
        assert.ok(text.includes(printed(line.amount)), `${name}: line`);
      for (const entry of model.taxBreakdown) {
        assert.ok(text.includes(printed(entry.taxableAmount)), `${name}: taxable`);
      }
      assert.equal(totals.totalExcludingTax + totals.tax, totals.total);
      assert.equal(totals.total - totals.prepaid, totals.amountDue);
    }
    const kwd = (await pageTexts(await renderPdf(dinarInvoice))).join('\n');
    assert.match(
      kwd,
      /Total KWD 1,262\.500\nPaid in advance -KWD 500\.000\nAmount due KWD 762\.500/,
    );
  });

  it("prints each line's period under its description, in every language, and no unit price for a line priced by tiers or proration", async () => {
    const german = (await pageTexts(await renderPdf(subscriptionInvoice))).join('\n');
    assert.match(
      german,
      /Müller Cloud Business, 25 Arbeitsplätze 25 Stk\. 29,00 € .*\n01\.01\.2027 – 31\.01\.2027\n/,
    );
    assert.match(
      german,
      /Nicht genutzte Zeit für Müller Cloud Team 25 Stk\. – .*-314,52 €\n17\.12\.2026 – 31\.12\.2026/,
    );
    for (const locale of LOCALES) {
      const model = { ...subscriptionInvoice, locale };
      const text = (await pageTexts(await renderPdf(model))).join('\n');
      for (const line of model.lines) {
        const period = formatPeriod(line.period!, locale).replace(/[\u00a0\u202f]/g, ' ');
        assert.ok(text.includes(`\n${period}\n`), `${locale}: ${period}`);
      }
    }
    assert.equal(
      formatPeriod({ start: '2027-01-01', end: '2027-01-31' }, 'en'),
      '1 Jan 2027 – 31 Jan 2027',
    );
    assert.equal(
      formatPeriod({ start: '2027-01-01', end: '2027-01-31' }, 'fr'),
      'du 01/01/2027 au 31/01/2027',
    );
  });

  it('refuses a model whose totals do not add up', async () => {
    const broken = structuredClone(germanReverseCharge);
    broken.totals.amountDue += 1;
    await assert.rejects(renderPdf(broken), /totals\.amountDue/);
  });
});
