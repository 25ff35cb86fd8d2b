import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import {
  catalogue,
  formatAmount,
  formatDate,
  formatPercentage,
  MESSAGE_IDS,
  resolveLocale,
  t,
} from '../../src/documents/i18n.ts';
import { LOCALES } from '../../src/documents/model.ts';

type Argument = 'text' | 'plural' | 'select';

/** Every placeholder of a message with its kind, and the options of its selects. */
function placeholders(elements: MessageFormatElement[], found = new Map<string, string>()) {
  for (const element of elements) {
    if (element.type === TYPE.argument) found.set(element.value, 'text');
    else if (element.type === TYPE.number || element.type === TYPE.date) {
      found.set(element.value, 'text');
    } else if (element.type === TYPE.plural) {
      found.set(element.value, 'plural');
      for (const option of Object.values(element.options)) placeholders(option.value, found);
    } else if (element.type === TYPE.select) {
      found.set(element.value, `select:${Object.keys(element.options).sort().join('|')}`);
      for (const option of Object.values(element.options)) placeholders(option.value, found);
    }
  }
  return found;
}

function sampleValues(message: string): Record<string, string | number> {
  const values: Record<string, string | number> = {};
  for (const [name, kind] of placeholders(parse(message))) {
    values[name] = (kind as Argument) === 'plural' ? 3 : kind.startsWith('select:') ? 'other' : 'X';
  }
  return values;
}

describe('message catalogues', () => {
  it('has every message in every language, and nothing else', () => {
    for (const locale of LOCALES) {
      assert.deepEqual(Object.keys(catalogue(locale)).sort(), [...MESSAGE_IDS].sort(), locale);
    }
  });

  it('uses the same placeholders in every language', () => {
    for (const id of MESSAGE_IDS) {
      const english = Object.fromEntries(placeholders(parse(catalogue('en')[id])));
      for (const locale of LOCALES) {
        const translated = Object.fromEntries(placeholders(parse(catalogue(locale)[id])));
        assert.deepEqual(translated, english, `${locale} ${id}`);
      }
    }
  });

  it('formats every message of every language without throwing', () => {
    for (const locale of LOCALES) {
      for (const id of MESSAGE_IDS) {
        const text = t(locale, id, sampleValues(catalogue('en')[id]));
        assert.ok(text.length > 0 && !text.includes('{'), `${locale} ${id}: ${text}`);
      }
    }
  });

  it('has the messages the e-mails and the hosted page will use', () => {
    const values = {
      number: 'INV-000042',
      seller: 'Müller GmbH',
      customer: 'Anna Nowak',
      amount: '1.234,56 €',
      amountRemaining: '234,56 €',
      total: '1.234,56 €',
      dueDate: '08.12.2026',
      issueDate: '24.11.2026',
      invoiceNumber: 'INV-000041',
      days: 3,
      url: 'https://billing.example/i/abc',
    };
    assert.equal(t('de', 'email.invoice.subject', values), 'Rechnung INV-000042 von Müller GmbH');
    assert.match(t('de', 'email.reminder.body', values), /seit 3 Tagen überfällig/);
    assert.match(t('en', 'email.reminder.body', { ...values, days: 1 }), /overdue by 1 day\./);
    assert.match(t('pl', 'email.reminder.body', { ...values, days: 2 }), /wynosi 2 dni\./);
    assert.match(t('pl', 'email.reminder.body', { ...values, days: 5 }), /wynosi 5 dni\./);
    assert.match(t('pl', 'email.reminder.body', { ...values, days: 1 }), /wynosi 1 dzień\./);
    assert.equal(
      t('fr', 'email.viewOnline', values),
      'Consulter en ligne : https://billing.example/i/abc',
    );
    for (const status of ['open', 'paid', 'partially_paid', 'overdue', 'void'] as const) {
      assert.ok(t('es', `hosted.status.${status}`).length > 0);
    }
    assert.equal(t('it', 'hosted.linkInvalid'), 'Questo link non è valido.');
  });

  it('names documents with the legal term of each language', () => {
    const titles = LOCALES.map((l) => [t(l, 'document.invoice'), t(l, 'document.creditNote')]);
    assert.deepEqual(titles, [
      ['Invoice', 'Credit note'],
      ['Rechnung', 'Rechnungskorrektur'],
      ['Facture', 'Avoir'],
      ['Factura', 'Factura rectificativa'],
      ['Fattura', 'Nota di credito'],
      ['Factuur', 'Creditnota'],
      ['Faktura', 'Faktura korygująca'],
    ]);
  });
});

describe('formats', () => {
  const plain = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');

  it('formats money from minor units exactly, in the language', () => {
    assert.equal(plain(formatAmount(123456, 'eur', 'de')), '1.234,56 €');
    assert.equal(plain(formatAmount(123456, 'eur', 'fr')), '1 234,56 €');
    assert.equal(formatAmount(123456, 'eur', 'en'), '€1,234.56');
    assert.equal(plain(formatAmount(123456, 'jpy', 'de')), '123.456 ¥');
    assert.equal(plain(formatAmount(1234567, 'kwd', 'en')), 'KWD 1,234.567');
    // Beyond 2^53 as bigint: no digit lost to binary floating point.
    assert.equal(formatAmount(900719925474099317n, 'eur', 'en'), '€9,007,199,254,740,993.17');
  });

  it('formats dates, rates and resolves language tags', () => {
    assert.equal(formatDate('2026-11-24', 'de'), '24.11.2026');
    assert.equal(formatDate('2026-11-24', 'nl'), '24-11-2026');
    assert.equal(formatDate('2026-11-24', 'en'), '24 Nov 2026');
    assert.throws(() => formatDate('24.11.2026', 'de'), RangeError);
    assert.equal(plain(formatPercentage('8.875', 'de')), '8,875 %');
    assert.equal(formatPercentage('19', 'en'), '19%');
    assert.equal(resolveLocale('de-AT'), 'de');
    assert.equal(resolveLocale('pl-PL'), 'pl');
    assert.equal(resolveLocale('pt-BR'), 'en');
    assert.equal(resolveLocale('pt-BR', 'fr'), 'fr');
    assert.equal(resolveLocale('not a tag!', 'nl'), 'nl');
    assert.equal(resolveLocale(null, 'it'), 'it');
  });
});
