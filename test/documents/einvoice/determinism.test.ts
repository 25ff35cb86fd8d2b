import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toCii } from '../../../src/documents/einvoice/cii.ts';
import {
  isWellFormedIdentifier,
  legalRegistration,
} from '../../../src/documents/einvoice/identifiers.ts';
import { isCountryCode, isSepaIban } from '../../../src/documents/einvoice/codes.ts';
import { toUbl } from '../../../src/documents/einvoice/ubl.ts';
import {
  leaf,
  MalformedXmlError,
  serialize,
  xmlDocument,
} from '../../../src/documents/einvoice/xml.ts';
import { corpus } from './corpus.ts';
import { all, parseXml, text } from './xml-reading.ts';

describe('e-invoice output', () => {
  it('is the same text for the same model, also for a copy of it', () => {
    for (const { model, refused } of corpus) {
      const copy = structuredClone(model);
      if (!refused?.ubl) assert.equal(toUbl(model), toUbl(copy));
      if (!refused?.cii) assert.equal(toCii(model), toCii(copy));
    }
  });

  it('escapes markup and replaces characters XML 1.0 cannot carry', () => {
    const base = corpus[0]!.model;
    const model = {
      ...base,
      note: 'Terms & <conditions> "apply"',
      lines: base.lines.map((l, i) =>
        i === 0 ? { ...l, description: 'Bell\u0007 & whistle' } : l,
      ),
    };
    for (const xml of [toUbl(model), toCii(model)]) {
      assert.ok(!xml.includes('\u0007'));
      assert.match(xml, /Terms &amp; &lt;conditions&gt;/);
    }
    assert.equal(text(parseXml(toUbl(model)), 'cbc:Note'), 'Terms & <conditions> "apply"');
    const [first] = all(parseXml(toUbl(model)), 'cac:InvoiceLine/cac:Item/cbc:Name');
    assert.equal(first!.textContent, 'Bell\uFFFD & whistle');
  });
});

describe('the check before a document is stored', () => {
  it('reads back exactly what was written: references, markup, CR, TAB and LF in attributes', () => {
    const root = xmlDocument('urn:example', 'Doc', { x: 'urn:x' });
    leaf(root, 'x:Name', 'Smith &e; Ltd &#1; &lt;b&gt; <x> "q" a\r\nb\rc', {
      schemeID: 'a&e; "b"\t\n\rc',
    });
    assert.doesNotThrow(() => serialize(root));
  });

  it('fails loudly on a document that is not well-formed', () => {
    const root = xmlDocument('urn:example', 'Doc', {});
    root.ele('Name').txt('Smith &e; Ltd');
    assert.throws(() => serialize(root), MalformedXmlError);
  });

  it('fails loudly on a document that reads back other than written', () => {
    const root = xmlDocument('urn:example', 'Doc', {});
    leaf(root, 'Name', 'Tom');
    root.ele('Name').txt('Tom &lt;b&gt;');
    assert.throws(() => serialize(root), MalformedXmlError);
  });
});

describe('identifiers and codes', () => {
  it('checks the check digits Peppol checks (PEPPOL-COMMON-R040 … R050)', () => {
    assert.ok(isWellFormedIdentifier('0088', '4098765432101'));
    assert.equal(isWellFormedIdentifier('0088', '4098765432100'), false);
    assert.ok(isWellFormedIdentifier('0192', '923609016'));
    assert.equal(isWellFormedIdentifier('0192', '923609017'), false);
    assert.ok(isWellFormedIdentifier('0007', '5560360793'));
    assert.ok(isWellFormedIdentifier('0208', '0403754877'));
    assert.ok(isWellFormedIdentifier('0151', '51824753556'));
    assert.ok(isWellFormedIdentifier('0184', 'DK12345678'));
    assert.ok(isWellFormedIdentifier('9930', 'anything'));
  });

  it("writes a registration with the scheme of its country's register, else as text", () => {
    assert.deepEqual(legalRegistration('556036-0793', 'SE'), {
      value: '5560360793',
      scheme: '0007',
    });
    assert.deepEqual(legalRegistration('0403.754.877', 'BE'), {
      value: '0403754877',
      scheme: '0208',
    });
    assert.deepEqual(legalRegistration('HRB 12345, AG München', 'DE'), {
      value: 'HRB 12345, AG München',
      scheme: null,
    });
    assert.equal(legalRegistration('  ', 'DE'), null);
  });

  it('knows ISO 3166 countries and SEPA IBANs', () => {
    assert.ok(isCountryCode('DE') && isCountryCode('XI') && isCountryCode('1A'));
    assert.equal(isCountryCode('UK'), false);
    assert.equal(isCountryCode('EU'), false);
    assert.ok(isSepaIban('CH9300762011623852957'));
    assert.equal(isSepaIban('SA0380000000608010167519'), false);
  });
});
