// UBL 2.1 Invoice / CreditNote following Peppol BIS Billing 3.0 (the syntax binding of the
// semantic invoice in semantic.ts). Element order is the UBL 2.1 schema's.
import type { DocumentModel } from '../model.ts';
import { assertEinvoiceComplete } from './completeness.ts';
import {
  toSemanticInvoice,
  type SemanticAddress,
  type SemanticInvoice,
  type SemanticParty,
} from './semantic.ts';
import { leaf, serialize, xmlDocument, type XmlElement } from './xml.ts';

const CAC = 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2';
const CBC = 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2';
const ROOT = {
  invoice: { name: 'Invoice', ns: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2' },
  credit_note: {
    name: 'CreditNote',
    ns: 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2',
  },
} as const;

export const PEPPOL_CUSTOMIZATION_ID =
  'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0';
export const PEPPOL_PROFILE_ID = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';

function address(parent: XmlElement, name: string, a: SemanticAddress): void {
  const el = parent.ele(name);
  leaf(el, 'cbc:StreetName', a.line1);
  leaf(el, 'cbc:AdditionalStreetName', a.line2);
  leaf(el, 'cbc:CityName', a.city);
  leaf(el, 'cbc:PostalZone', a.postalCode);
  leaf(el, 'cbc:CountrySubentity', a.state);
  leaf(el.ele('cac:Country'), 'cbc:IdentificationCode', a.country);
}

function vatScheme(parent: XmlElement): void {
  leaf(parent.ele('cac:TaxScheme'), 'cbc:ID', 'VAT');
}

function party(parent: XmlElement, name: string, p: SemanticParty): void {
  const el = parent.ele(name).ele('cac:Party');
  if (p.electronicAddress) {
    leaf(el, 'cbc:EndpointID', p.electronicAddress.value, { schemeID: p.electronicAddress.scheme });
  }
  address(el, 'cac:PostalAddress', p.address);
  if (p.vatId) {
    const scheme = el.ele('cac:PartyTaxScheme');
    leaf(scheme, 'cbc:CompanyID', p.vatId);
    vatScheme(scheme);
  }
  const legal = el.ele('cac:PartyLegalEntity');
  leaf(legal, 'cbc:RegistrationName', p.name);
  if (p.legalRegistration) {
    const { value, scheme } = p.legalRegistration;
    leaf(legal, 'cbc:CompanyID', value, scheme ? { schemeID: scheme } : undefined);
  }
  if (p.email || p.phone) {
    const contact = el.ele('cac:Contact');
    leaf(contact, 'cbc:Name', p.contactName);
    if (p.phone) leaf(contact, 'cbc:Telephone', p.phone);
    if (p.email) leaf(contact, 'cbc:ElectronicMail', p.email);
  }
}

function header(root: XmlElement, inv: SemanticInvoice): void {
  leaf(root, 'cbc:CustomizationID', PEPPOL_CUSTOMIZATION_ID);
  leaf(root, 'cbc:ProfileID', PEPPOL_PROFILE_ID);
  leaf(root, 'cbc:ID', inv.number);
  leaf(root, 'cbc:IssueDate', inv.issueDate);
  if (inv.kind === 'invoice') {
    leaf(root, 'cbc:DueDate', inv.dueDate);
    leaf(root, 'cbc:InvoiceTypeCode', inv.typeCode);
  } else {
    leaf(root, 'cbc:CreditNoteTypeCode', inv.typeCode);
  }
  leaf(root, 'cbc:Note', inv.note);
  leaf(root, 'cbc:DocumentCurrencyCode', inv.currency);
  leaf(root, 'cbc:BuyerReference', inv.buyerReference);
  invoicePeriod(root, inv.servicePeriod);
  if (inv.purchaseOrder) leaf(root.ele('cac:OrderReference'), 'cbc:ID', inv.purchaseOrder);
  if (inv.precedingInvoice) {
    const ref = root.ele('cac:BillingReference').ele('cac:InvoiceDocumentReference');
    leaf(ref, 'cbc:ID', inv.precedingInvoice.number);
    leaf(ref, 'cbc:IssueDate', inv.precedingInvoice.issueDate);
  }
}

/** BG-14 on the document, BG-26 on a line. */
function invoicePeriod(parent: XmlElement, period: { start: string; end: string } | null): void {
  if (!period) return;
  const el = parent.ele('cac:InvoicePeriod');
  leaf(el, 'cbc:StartDate', period.start);
  leaf(el, 'cbc:EndDate', period.end);
}

function settlement(root: XmlElement, inv: SemanticInvoice): void {
  if (inv.supplyDate || inv.deliverTo) {
    const delivery = root.ele('cac:Delivery');
    leaf(delivery, 'cbc:ActualDeliveryDate', inv.supplyDate);
    if (inv.deliverTo) address(delivery.ele('cac:DeliveryLocation'), 'cac:Address', inv.deliverTo);
  }
  if (inv.payment) {
    const means = root.ele('cac:PaymentMeans');
    leaf(means, 'cbc:PaymentMeansCode', inv.payment.meansCode);
    // A credit note's due date goes here (UBL's CreditNote has no DueDate of its own).
    if (inv.kind === 'credit_note') leaf(means, 'cbc:PaymentDueDate', inv.dueDate);
    leaf(means, 'cbc:PaymentID', inv.payment.reference);
    const account = means.ele('cac:PayeeFinancialAccount');
    leaf(account, 'cbc:ID', inv.payment.iban);
    leaf(account, 'cbc:Name', inv.payment.accountName);
    if (inv.payment.bic)
      leaf(account.ele('cac:FinancialInstitutionBranch'), 'cbc:ID', inv.payment.bic);
  }
  if (inv.paymentTerms) leaf(root.ele('cac:PaymentTerms'), 'cbc:Note', inv.paymentTerms);
}

function taxTotal(root: XmlElement, inv: SemanticInvoice): void {
  const currencyID = { currencyID: inv.currency };
  const total = root.ele('cac:TaxTotal');
  leaf(total, 'cbc:TaxAmount', inv.totals.tax, currencyID);
  for (const group of inv.vat) {
    const subtotal = total.ele('cac:TaxSubtotal');
    leaf(subtotal, 'cbc:TaxableAmount', group.taxableAmount, currencyID);
    leaf(subtotal, 'cbc:TaxAmount', group.taxAmount, currencyID);
    const category = subtotal.ele('cac:TaxCategory');
    leaf(category, 'cbc:ID', group.category);
    leaf(category, 'cbc:Percent', group.percent);
    leaf(category, 'cbc:TaxExemptionReasonCode', group.exemptionReasonCode);
    leaf(category, 'cbc:TaxExemptionReason', group.exemptionReason);
    vatScheme(category);
  }
  const sums = root.ele('cac:LegalMonetaryTotal');
  leaf(sums, 'cbc:LineExtensionAmount', inv.totals.lineNet, currencyID);
  leaf(sums, 'cbc:TaxExclusiveAmount', inv.totals.taxExclusive, currencyID);
  leaf(sums, 'cbc:TaxInclusiveAmount', inv.totals.taxInclusive, currencyID);
  leaf(sums, 'cbc:PrepaidAmount', inv.totals.prepaid, currencyID);
  leaf(sums, 'cbc:PayableAmount', inv.totals.payable, currencyID);
}

function lines(root: XmlElement, inv: SemanticInvoice): void {
  const invoice = inv.kind === 'invoice';
  const currencyID = { currencyID: inv.currency };
  for (const line of inv.lines) {
    const el = root.ele(invoice ? 'cac:InvoiceLine' : 'cac:CreditNoteLine');
    leaf(el, 'cbc:ID', line.id);
    leaf(el, invoice ? 'cbc:InvoicedQuantity' : 'cbc:CreditedQuantity', line.pricing.quantity, {
      unitCode: line.unitCode,
    });
    leaf(el, 'cbc:LineExtensionAmount', line.netAmount, currencyID);
    invoicePeriod(el, line.period);
    if (line.charge) {
      const charge = el.ele('cac:AllowanceCharge');
      leaf(charge, 'cbc:ChargeIndicator', String(line.charge.isCharge));
      leaf(charge, 'cbc:AllowanceChargeReason', line.charge.reason);
      leaf(charge, 'cbc:Amount', line.charge.amount, currencyID);
    }
    const item = el.ele('cac:Item');
    leaf(item, 'cbc:Name', line.name);
    const category = item.ele('cac:ClassifiedTaxCategory');
    leaf(category, 'cbc:ID', line.category);
    leaf(category, 'cbc:Percent', line.percent);
    vatScheme(category);
    const price = el.ele('cac:Price');
    leaf(price, 'cbc:PriceAmount', line.pricing.price, currencyID);
    leaf(price, 'cbc:BaseQuantity', line.pricing.baseQuantity, { unitCode: line.unitCode });
  }
}

/** The UBL XML of a semantic invoice, as it is: callers check completeness first. */
export function writeUbl(inv: SemanticInvoice): string {
  const root = ROOT[inv.kind];
  const doc = xmlDocument(root.ns, root.name, { cac: CAC, cbc: CBC });
  header(doc, inv);
  party(doc, 'cac:AccountingSupplierParty', inv.seller);
  party(doc, 'cac:AccountingCustomerParty', inv.buyer);
  settlement(doc, inv);
  taxTotal(doc, inv);
  lines(doc, inv);
  return serialize(doc);
}

/** The UBL XML of an issued invoice or credit note; throws EinvoiceDataMissingError otherwise. */
export function toUbl(model: DocumentModel): string {
  assertEinvoiceComplete(model, 'ubl');
  return writeUbl(toSemanticInvoice(model));
}
