import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toCii } from '../../../src/documents/einvoice/cii.ts';
import { toUbl } from '../../../src/documents/einvoice/ubl.ts';
import { corpus } from './corpus.ts';
import { all, isIn, parseXml, text } from './xml-reading.ts';

const complete = (syntax: 'ubl' | 'cii') => corpus.filter((e) => !e.refused?.[syntax]);
const byName = (name: string) => corpus.find((e) => e.name === name)!.model;

describe('UBL (Peppol BIS Billing 3.0)', () => {
  it('writes an Invoice 380 or a CreditNote 381 with the Peppol identifiers', () => {
    for (const { name, model } of complete('ubl')) {
      const root = parseXml(toUbl(model));
      const invoice = model.kind === 'invoice';
      assert.ok(isIn(root, invoice ? 'inv' : 'cn', invoice ? 'Invoice' : 'CreditNote'), name);
      assert.equal(
        text(root, invoice ? 'cbc:InvoiceTypeCode' : 'cbc:CreditNoteTypeCode'),
        invoice ? '380' : '381',
      );
      assert.equal(
        text(root, 'cbc:CustomizationID'),
        'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0',
      );
      assert.equal(text(root, 'cbc:ProfileID'), 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0');
      assert.equal(text(root, 'cbc:ID'), model.number);
      assert.equal(text(root, 'cbc:DocumentCurrencyCode'), model.currency.toUpperCase());
      for (const role of ['cac:AccountingSupplierParty', 'cac:AccountingCustomerParty']) {
        assert.ok(text(root, `${role}/cac:Party/cbc:EndpointID`), `${name}: ${role} endpoint`);
        assert.ok(text(root, `${role}/cac:Party/cac:PartyLegalEntity/cbc:RegistrationName`));
      }
      assert.ok(text(root, 'cbc:BuyerReference') ?? text(root, 'cac:OrderReference/cbc:ID'));
      const lines = all(root, invoice ? 'cac:InvoiceLine' : 'cac:CreditNoteLine');
      assert.equal(lines.length, model.lines.length);
      lines.forEach((line, i) => {
        const quantity = all(line, invoice ? 'cbc:InvoicedQuantity' : 'cbc:CreditedQuantity')[0]!;
        assert.equal(quantity.getAttribute('unitCode'), model.lines[i]!.unitCode);
        assert.equal(all(line, 'cac:Item/cac:ClassifiedTaxCategory').length, 1);
      });
    }
  });

  it('refers a credit note to the corrected invoice by number and date (BG-3)', () => {
    const model = byName('credit-note-s');
    const root = parseXml(toUbl(model));
    assert.equal(
      text(root, 'cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID'),
      'INV-000001',
    );
    assert.equal(
      text(root, 'cac:BillingReference/cac:InvoiceDocumentReference/cbc:IssueDate'),
      '2026-11-24',
    );
  });

  it('pays by SEPA credit transfer (58) to the IBAN, with BIC and account name', () => {
    const root = parseXml(toUbl(byName('invoice-s-one-rate')));
    assert.equal(text(root, 'cac:PaymentMeans/cbc:PaymentMeansCode'), '58');
    assert.equal(text(root, 'cac:PaymentMeans/cbc:PaymentID'), 'INV-000001');
    assert.equal(
      text(root, 'cac:PaymentMeans/cac:PayeeFinancialAccount/cbc:ID'),
      'DE89370400440532013000',
    );
    assert.equal(text(root, 'cac:PaymentMeans/cac:PayeeFinancialAccount/cbc:Name'), 'Muster GmbH');
    assert.equal(
      text(
        root,
        'cac:PaymentMeans/cac:PayeeFinancialAccount/cac:FinancialInstitutionBranch/cbc:ID',
      ),
      'COBADEFFXXX',
    );
    const withoutAccount = parseXml(toUbl(byName('invoice-s-discount-purchase-order-no-payment')));
    assert.equal(all(withoutAccount, 'cac:PaymentMeans').length, 0);
    assert.equal(text(withoutAccount, 'cac:OrderReference/cbc:ID'), 'PO-2026-117');
  });

  it('leaves the VAT ids out and the rate off the lines outside the scope of VAT (BR-O-02, BR-O-05)', () => {
    const root = parseXml(toUbl(byName('invoice-o-outside-scope')));
    assert.equal(all(root, 'cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme').length, 0);
    assert.equal(all(root, 'cac:AccountingCustomerParty/cac:Party/cac:PartyTaxScheme').length, 0);
    assert.equal(
      text(root, 'cac:AccountingSupplierParty/cac:Party/cac:PartyLegalEntity/cbc:CompanyID'),
      'HRB 12345',
    );
    assert.equal(
      text(root, 'cac:InvoiceLine/cac:Item/cac:ClassifiedTaxCategory/cbc:Percent'),
      null,
    );
    assert.equal(
      text(root, 'cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory/cbc:TaxExemptionReasonCode'),
      'VATEX-EU-O',
    );
  });

  it('writes reverse charge at 0 % with its code and text, never the domestic rate', () => {
    const root = parseXml(toUbl(byName('invoice-ae-reverse-charge')));
    const category = 'cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory';
    assert.equal(text(root, `${category}/cbc:ID`), 'AE');
    assert.equal(text(root, `${category}/cbc:Percent`), '0');
    assert.equal(text(root, `${category}/cbc:TaxExemptionReasonCode`), 'VATEX-EU-AE');
    assert.equal(text(root, `${category}/cbc:TaxExemptionReason`), 'Autoliquidation');
    assert.equal(text(root, 'cac:InvoiceLine/cac:Item/cac:ClassifiedTaxCategory/cbc:Percent'), '0');
  });

  it("sends an intra-community supply to the buyer's country (BR-IC-12)", () => {
    const root = parseXml(toUbl(byName('invoice-k-intra-community')));
    assert.equal(
      text(
        root,
        'cac:Delivery/cac:DeliveryLocation/cac:Address/cac:Country/cbc:IdentificationCode',
      ),
      'AT',
    );
    assert.equal(text(root, 'cac:Delivery/cbc:ActualDeliveryDate'), '2026-11-20');
  });

  it('writes a service period as the invoicing period (BG-14)', () => {
    const root = parseXml(toUbl(byName('invoice-s-two-rates-inclusive-period')));
    assert.equal(text(root, 'cac:InvoicePeriod/cbc:StartDate'), '2026-10-01');
    assert.equal(text(root, 'cac:InvoicePeriod/cbc:EndDate'), '2026-10-31');
    assert.equal(all(root, 'cac:Delivery').length, 0);
  });

  it('gives the seller registration its register scheme where Peppol asks for one', () => {
    const dk = parseXml(toUbl(byName('peppol-dk-domestic')));
    const id = all(
      dk,
      'cac:AccountingSupplierParty/cac:Party/cac:PartyLegalEntity/cbc:CompanyID',
    )[0]!;
    assert.equal(id.getAttribute('schemeID'), '0184');
    const se = parseXml(toUbl(byName('peppol-se-domestic')));
    assert.equal(
      text(se, 'cac:AccountingSupplierParty/cac:Party/cac:PartyLegalEntity/cbc:CompanyID'),
      '5560360793',
    );
  });
});

describe('CII (EN 16931, the XML of Factur-X)', () => {
  it('writes a CrossIndustryInvoice with the EN 16931 guideline and type code 380 / 381', () => {
    for (const { name, model } of complete('cii')) {
      const root = parseXml(toCii(model));
      assert.ok(isIn(root, 'rsm', 'CrossIndustryInvoice'), name);
      assert.equal(
        text(
          root,
          'rsm:ExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID',
        ),
        'urn:cen.eu:en16931:2017',
      );
      assert.equal(
        text(root, 'rsm:ExchangedDocument/ram:TypeCode'),
        model.kind === 'invoice' ? '380' : '381',
      );
      assert.equal(
        text(root, 'rsm:ExchangedDocument/ram:IssueDateTime/udt:DateTimeString'),
        model.issueDate.replaceAll('-', ''),
      );
      const transaction = all(root, 'rsm:SupplyChainTradeTransaction')[0]!;
      // The schema requires all three header groups, in this order, after the lines.
      const groups = [...transaction.childNodes]
        .filter((n) => n.nodeType === 1)
        .map((n) => n.localName);
      assert.deepEqual(groups.slice(-3), [
        'ApplicableHeaderTradeAgreement',
        'ApplicableHeaderTradeDelivery',
        'ApplicableHeaderTradeSettlement',
      ]);
      assert.equal(
        all(transaction, 'ram:IncludedSupplyChainTradeLineItem').length,
        model.lines.length,
      );
    }
  });

  it('refers a credit note to the corrected invoice (InvoiceReferencedDocument)', () => {
    const root = parseXml(toCii(byName('credit-note-s')));
    const ref =
      'rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement/ram:InvoiceReferencedDocument';
    assert.equal(text(root, `${ref}/ram:IssuerAssignedID`), 'INV-000001');
    assert.equal(text(root, `${ref}/ram:FormattedIssueDateTime/qdt:DateTimeString`), '20261124');
  });

  it('accepts an e-mail electronic address, which only Peppol refuses', () => {
    const model = byName('refused-ubl-email-address-and-no-buyer-address-on-peppol');
    const root = parseXml(toCii(model));
    const uri = all(
      root,
      'rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeAgreement/ram:SellerTradeParty/ram:URIUniversalCommunication/ram:URIID',
    )[0]!;
    assert.equal(uri.getAttribute('schemeID'), 'EM');
    assert.throws(() => toUbl(model), {
      name: 'EinvoiceDataMissingError',
      message: /seller\.electronicAddress/,
    });
  });
});

describe('the conformance corpus', () => {
  it('covers every category, both kinds, both price modes, JPY, KWD, payment and supply variants', () => {
    const valid = corpus.filter((e) => !e.refused).map((e) => e.model);
    const categories = new Set(valid.flatMap((m) => m.taxBreakdown.map((t) => t.category)));
    assert.deepEqual([...categories].sort(), ['AE', 'E', 'G', 'K', 'L', 'M', 'O', 'S', 'Z']);
    const has = (test: (m: (typeof valid)[number]) => boolean) => valid.some(test);
    assert.ok(has((m) => m.kind === 'credit_note') && has((m) => m.kind === 'invoice'));
    assert.ok(has((m) => m.pricesIncludeTax) && has((m) => !m.pricesIncludeTax));
    assert.ok(has((m) => m.currency === 'jpy') && has((m) => m.currency === 'kwd'));
    assert.ok(has((m) => m.payment.iban !== null) && has((m) => m.payment.iban === null));
    assert.ok(has((m) => m.servicePeriod !== null) && has((m) => m.supplyDate !== null));
    assert.ok(has((m) => m.lines.some((l) => l.netAmount < 0)));
    assert.ok(has((m) => m.taxBreakdown.length > 2) && has((m) => m.taxBreakdown.length === 1));
  });
});
