// UN/CEFACT Cross Industry Invoice D16B following the EN 16931 profile: the XML a Factur-X /
// ZUGFeRD PDF embeds as factur-x.xml (its EN 16931 profile uses the same guideline id).
// The syntax binding of semantic.ts; element order is the D16B schema's.
import type { DocumentModel } from '../model.ts';
import { assertEinvoiceComplete } from './completeness.ts';
import {
  toSemanticInvoice,
  type SemanticAddress,
  type SemanticInvoice,
  type SemanticParty,
} from './semantic.ts';
import { leaf, serialize, xmlDocument, type XmlElement } from './xml.ts';

const NS = {
  rsm: 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
  ram: 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100',
  qdt: 'urn:un:unece:uncefact:data:standard:QualifiedDataType:100',
  udt: 'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100',
};

/** The EN 16931 guideline (BT-24); Factur-X's EN 16931 profile is identified the same way. */
export const EN16931_GUIDELINE_ID = 'urn:cen.eu:en16931:2017';

/** YYYY-MM-DD → a date in format 102 (YYYYMMDD), the only one EN 16931 allows (CII-DT-097). */
function date(parent: XmlElement, name: string, value: string, type: 'udt' | 'qdt' = 'udt'): void {
  leaf(parent.ele(name), `${type}:DateTimeString`, value.replaceAll('-', ''), { format: '102' });
}

/** BG-14 in the header's settlement, BG-26 in a line's. */
function billingPeriod(parent: XmlElement, period: { start: string; end: string } | null): void {
  if (!period) return;
  const el = parent.ele('ram:BillingSpecifiedPeriod');
  date(el, 'ram:StartDateTime', period.start);
  date(el, 'ram:EndDateTime', period.end);
}

function address(parent: XmlElement, a: SemanticAddress): void {
  const el = parent.ele('ram:PostalTradeAddress');
  leaf(el, 'ram:PostcodeCode', a.postalCode);
  leaf(el, 'ram:LineOne', a.line1);
  leaf(el, 'ram:LineTwo', a.line2);
  leaf(el, 'ram:CityName', a.city);
  leaf(el, 'ram:CountryID', a.country);
  leaf(el, 'ram:CountrySubDivisionName', a.state);
}

function party(parent: XmlElement, name: string, p: SemanticParty): void {
  const el = parent.ele(name);
  leaf(el, 'ram:Name', p.name);
  if (p.legalRegistration) {
    const { value, scheme } = p.legalRegistration;
    leaf(
      el.ele('ram:SpecifiedLegalOrganization'),
      'ram:ID',
      value,
      scheme ? { schemeID: scheme } : undefined,
    );
  }
  if (p.email || p.phone) {
    const contact = el.ele('ram:DefinedTradeContact');
    leaf(contact, 'ram:PersonName', p.contactName);
    if (p.phone) {
      leaf(contact.ele('ram:TelephoneUniversalCommunication'), 'ram:CompleteNumber', p.phone);
    }
    if (p.email) leaf(contact.ele('ram:EmailURIUniversalCommunication'), 'ram:URIID', p.email);
  }
  address(el, p.address);
  if (p.electronicAddress) {
    const uri = el.ele('ram:URIUniversalCommunication');
    leaf(uri, 'ram:URIID', p.electronicAddress.value, { schemeID: p.electronicAddress.scheme });
  }
  if (p.vatId) leaf(el.ele('ram:SpecifiedTaxRegistration'), 'ram:ID', p.vatId, { schemeID: 'VA' });
}

function lines(parent: XmlElement, inv: SemanticInvoice): void {
  for (const line of inv.lines) {
    const el = parent.ele('ram:IncludedSupplyChainTradeLineItem');
    leaf(el.ele('ram:AssociatedDocumentLineDocument'), 'ram:LineID', line.id);
    leaf(el.ele('ram:SpecifiedTradeProduct'), 'ram:Name', line.name);
    const price = el.ele('ram:SpecifiedLineTradeAgreement').ele('ram:NetPriceProductTradePrice');
    leaf(price, 'ram:ChargeAmount', line.pricing.price);
    leaf(price, 'ram:BasisQuantity', line.pricing.baseQuantity, { unitCode: line.unitCode });
    const delivery = el.ele('ram:SpecifiedLineTradeDelivery');
    leaf(delivery, 'ram:BilledQuantity', line.pricing.quantity, { unitCode: line.unitCode });
    const settlement = el.ele('ram:SpecifiedLineTradeSettlement');
    const tax = settlement.ele('ram:ApplicableTradeTax');
    leaf(tax, 'ram:TypeCode', 'VAT');
    leaf(tax, 'ram:CategoryCode', line.category);
    leaf(tax, 'ram:RateApplicablePercent', line.percent);
    billingPeriod(settlement, line.period);
    if (line.charge) {
      const charge = settlement.ele('ram:SpecifiedTradeAllowanceCharge');
      leaf(charge.ele('ram:ChargeIndicator'), 'udt:Indicator', String(line.charge.isCharge));
      leaf(charge, 'ram:ActualAmount', line.charge.amount);
      leaf(charge, 'ram:Reason', line.charge.reason);
    }
    const sum = settlement.ele('ram:SpecifiedTradeSettlementLineMonetarySummation');
    leaf(sum, 'ram:LineTotalAmount', line.netAmount);
  }
}

function agreement(parent: XmlElement, inv: SemanticInvoice): void {
  const el = parent.ele('ram:ApplicableHeaderTradeAgreement');
  leaf(el, 'ram:BuyerReference', inv.buyerReference);
  party(el, 'ram:SellerTradeParty', inv.seller);
  party(el, 'ram:BuyerTradeParty', inv.buyer);
  if (inv.purchaseOrder) {
    leaf(el.ele('ram:BuyerOrderReferencedDocument'), 'ram:IssuerAssignedID', inv.purchaseOrder);
  }
}

function delivery(parent: XmlElement, inv: SemanticInvoice): void {
  // Present even when empty: the schema requires the element (the rules alone would not).
  const el = parent.ele('ram:ApplicableHeaderTradeDelivery');
  if (inv.deliverTo) address(el.ele('ram:ShipToTradeParty'), inv.deliverTo);
  if (inv.supplyDate)
    date(el.ele('ram:ActualDeliverySupplyChainEvent'), 'ram:OccurrenceDateTime', inv.supplyDate);
}

function settlement(parent: XmlElement, inv: SemanticInvoice): void {
  const el = parent.ele('ram:ApplicableHeaderTradeSettlement');
  leaf(el, 'ram:PaymentReference', inv.payment?.reference);
  leaf(el, 'ram:InvoiceCurrencyCode', inv.currency);
  if (inv.payment) {
    const means = el.ele('ram:SpecifiedTradeSettlementPaymentMeans');
    leaf(means, 'ram:TypeCode', inv.payment.meansCode);
    const account = means.ele('ram:PayeePartyCreditorFinancialAccount');
    leaf(account, 'ram:IBANID', inv.payment.iban);
    leaf(account, 'ram:AccountName', inv.payment.accountName);
    if (inv.payment.bic) {
      leaf(
        means.ele('ram:PayeeSpecifiedCreditorFinancialInstitution'),
        'ram:BICID',
        inv.payment.bic,
      );
    }
  }
  for (const group of inv.vat) {
    const tax = el.ele('ram:ApplicableTradeTax');
    leaf(tax, 'ram:CalculatedAmount', group.taxAmount);
    leaf(tax, 'ram:TypeCode', 'VAT');
    leaf(tax, 'ram:ExemptionReason', group.exemptionReason);
    leaf(tax, 'ram:BasisAmount', group.taxableAmount);
    leaf(tax, 'ram:CategoryCode', group.category);
    leaf(tax, 'ram:ExemptionReasonCode', group.exemptionReasonCode);
    leaf(tax, 'ram:RateApplicablePercent', group.percent);
  }
  billingPeriod(el, inv.servicePeriod);
  if (inv.paymentTerms || inv.dueDate) {
    const terms = el.ele('ram:SpecifiedTradePaymentTerms');
    leaf(terms, 'ram:Description', inv.paymentTerms);
    if (inv.dueDate) date(terms, 'ram:DueDateDateTime', inv.dueDate);
  }
  const sums = el.ele('ram:SpecifiedTradeSettlementHeaderMonetarySummation');
  leaf(sums, 'ram:LineTotalAmount', inv.totals.lineNet);
  leaf(sums, 'ram:TaxBasisTotalAmount', inv.totals.taxExclusive);
  leaf(sums, 'ram:TaxTotalAmount', inv.totals.tax, { currencyID: inv.currency });
  leaf(sums, 'ram:GrandTotalAmount', inv.totals.taxInclusive);
  leaf(sums, 'ram:TotalPrepaidAmount', inv.totals.prepaid);
  leaf(sums, 'ram:DuePayableAmount', inv.totals.payable);
  if (inv.precedingInvoice) {
    const ref = el.ele('ram:InvoiceReferencedDocument');
    leaf(ref, 'ram:IssuerAssignedID', inv.precedingInvoice.number);
    date(ref, 'ram:FormattedIssueDateTime', inv.precedingInvoice.issueDate, 'qdt');
  }
}

/** The CII XML of a semantic invoice, as it is: callers check completeness first. */
export function writeCii(inv: SemanticInvoice): string {
  const doc = xmlDocument(NS.rsm, 'rsm:CrossIndustryInvoice', NS);
  const context = doc.ele('rsm:ExchangedDocumentContext');
  leaf(
    context.ele('ram:GuidelineSpecifiedDocumentContextParameter'),
    'ram:ID',
    EN16931_GUIDELINE_ID,
  );
  const header = doc.ele('rsm:ExchangedDocument');
  leaf(header, 'ram:ID', inv.number);
  leaf(header, 'ram:TypeCode', inv.typeCode);
  date(header, 'ram:IssueDateTime', inv.issueDate);
  if (inv.note) leaf(header.ele('ram:IncludedNote'), 'ram:Content', inv.note);
  const transaction = doc.ele('rsm:SupplyChainTradeTransaction');
  lines(transaction, inv);
  agreement(transaction, inv);
  delivery(transaction, inv);
  settlement(transaction, inv);
  return serialize(doc);
}

/** The CII XML of an issued invoice or credit note; throws EinvoiceDataMissingError otherwise. */
export function toCii(model: DocumentModel): string {
  assertEinvoiceComplete(model, 'cii');
  return writeCii(toSemanticInvoice(model));
}
