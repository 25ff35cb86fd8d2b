import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { toCii } from '../../../src/documents/einvoice/cii.ts';
import { missingEinvoiceData } from '../../../src/documents/einvoice/completeness.ts';
import { toUbl } from '../../../src/documents/einvoice/ubl.ts';
import type { DocumentModel } from '../../../src/documents/model.ts';
import { corpus } from './corpus.ts';
import { randomModels } from './random-models.ts';
import { all, micros, parseXml, scaled, text, type XmlNode } from './xml-reading.ts';

const sum = (values: bigint[]) => values.reduce((s, v) => s + v, 0n);
const amounts = (node: XmlNode, path: string) => all(node, path).map((n) => micros(n.textContent));
const twoDecimals = (value: string | null) => value !== null && /^-?\d+(\.\d{1,2})?$/.test(value);

/** The sums EN 16931 requires (BR-CO-10, -13, -14, -15, -16, BR-x-08) and Peppol R120. */
function checkUbl(model: DocumentModel): void {
  const root = parseXml(toUbl(model));
  const lineName = model.kind === 'invoice' ? 'cac:InvoiceLine' : 'cac:CreditNoteLine';
  const quantityName = model.kind === 'invoice' ? 'cbc:InvoicedQuantity' : 'cbc:CreditedQuantity';
  const lines = all(root, lineName);
  const net = (line: XmlNode) => micros(text(line, 'cbc:LineExtensionAmount'));
  const totals = (name: string) => micros(text(root, `cac:LegalMonetaryTotal/cbc:${name}`));
  assert.equal(sum(lines.map(net)), totals('LineExtensionAmount'), 'BR-CO-10');
  assert.equal(totals('TaxExclusiveAmount'), totals('LineExtensionAmount'), 'BR-CO-13');
  const tax = micros(text(root, 'cac:TaxTotal/cbc:TaxAmount'));
  assert.equal(sum(amounts(root, 'cac:TaxTotal/cac:TaxSubtotal/cbc:TaxAmount')), tax, 'BR-CO-14');
  assert.equal(totals('TaxExclusiveAmount') + tax, totals('TaxInclusiveAmount'), 'BR-CO-15');
  const prepaid = all(root, 'cac:LegalMonetaryTotal/cbc:PrepaidAmount').length
    ? totals('PrepaidAmount')
    : 0n;
  assert.equal(totals('TaxInclusiveAmount') - prepaid, totals('PayableAmount'), 'BR-CO-16');
  for (const subtotal of all(root, 'cac:TaxTotal/cac:TaxSubtotal')) {
    const category = text(subtotal, 'cac:TaxCategory/cbc:ID');
    const percent = text(subtotal, 'cac:TaxCategory/cbc:Percent');
    const members = lines.filter(
      (l) =>
        text(l, 'cac:Item/cac:ClassifiedTaxCategory/cbc:ID') === category &&
        (category === 'O' || text(l, 'cac:Item/cac:ClassifiedTaxCategory/cbc:Percent') === percent),
    );
    assert.equal(sum(members.map(net)), micros(text(subtotal, 'cbc:TaxableAmount')), 'BR-S-08');
  }
  for (const line of lines) {
    const quantity = scaled(text(line, quantityName), 12);
    const price = micros(text(line, 'cac:Price/cbc:PriceAmount'));
    const base = all(line, 'cac:Price/cbc:BaseQuantity').length
      ? scaled(text(line, 'cac:Price/cbc:BaseQuantity'), 12)
      : 10n ** 12n;
    const charges = sum(
      all(line, 'cac:AllowanceCharge').map((c) =>
        text(c, 'cbc:ChargeIndicator') === 'true'
          ? micros(text(c, 'cbc:Amount'))
          : -micros(text(c, 'cbc:Amount')),
      ),
    );
    assert.ok(price >= 0n, 'BR-27: the price is never negative');
    // quantity × price / base + charges − allowances = net, exactly (quantities to 12 places).
    assert.equal(quantity * price, (net(line) - charges) * base, 'PEPPOL-EN16931-R120');
  }
  const money = [...all(root, 'cac:LegalMonetaryTotal'), ...all(root, 'cac:TaxTotal')].flatMap(
    (n) => [...n.childNodes],
  );
  const lineAmounts = lines.flatMap((l) => [
    ...all(l, 'cbc:LineExtensionAmount'),
    ...all(l, 'cac:AllowanceCharge/cbc:Amount'),
  ]);
  for (const node of [...money, ...lineAmounts]) {
    if (node.nodeType === 1 && node.localName.endsWith('Amount'))
      assert.ok(twoDecimals(node.textContent), `${node.localName} ${node.textContent}`);
  }
}

function checkCii(model: DocumentModel): void {
  const root = parseXml(toCii(model));
  const trade = 'rsm:SupplyChainTradeTransaction';
  const settlement = `${trade}/ram:ApplicableHeaderTradeSettlement`;
  const sums = (name: string) =>
    micros(
      text(root, `${settlement}/ram:SpecifiedTradeSettlementHeaderMonetarySummation/ram:${name}`),
    );
  const lineNets = amounts(
    root,
    `${trade}/ram:IncludedSupplyChainTradeLineItem/ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount`,
  );
  assert.equal(sum(lineNets), sums('LineTotalAmount'), 'BR-CO-10');
  assert.equal(sums('TaxBasisTotalAmount'), sums('LineTotalAmount'), 'BR-CO-13');
  assert.equal(
    sum(amounts(root, `${settlement}/ram:ApplicableTradeTax/ram:CalculatedAmount`)),
    sums('TaxTotalAmount'),
    'BR-CO-14',
  );
  assert.equal(
    sums('TaxBasisTotalAmount') + sums('TaxTotalAmount'),
    sums('GrandTotalAmount'),
    'BR-CO-15',
  );
  assert.equal(
    sum(amounts(root, `${settlement}/ram:ApplicableTradeTax/ram:BasisAmount`)),
    sums('LineTotalAmount'),
  );
}

describe('e-invoice sums', () => {
  it('add up in every corpus document, in both syntaxes', () => {
    for (const { model, refused } of corpus) {
      if (!refused?.ubl) checkUbl(model);
      if (!refused?.cii) checkCii(model);
    }
  });

  it('add up for any mix of rates, prices, discounts and currencies that is complete', () => {
    let written = 0;
    fc.assert(
      fc.property(randomModels, (model) => {
        if (missingEinvoiceData(model).length > 0) {
          // Only a three-digit currency's odd fils may stand in the way here.
          assert.equal(model.currency, 'kwd', missingEinvoiceData(model).join());
          return;
        }
        written += 1;
        checkUbl(model);
        checkCii(model);
      }),
      { numRuns: 150 },
    );
    assert.ok(written > 50, `only ${written} complete documents were generated`);
  });
});
