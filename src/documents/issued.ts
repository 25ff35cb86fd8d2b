// The documents of an issued invoice or credit note, from its model: the e-invoices in both
// syntaxes where the data allow them (else what they lack), and the PDF/A-3b, a Factur-X
// hybrid when the CII e-invoice could be written. Pure: the same model gives the same bytes.
import { missingEinvoiceData } from './einvoice/completeness.ts';
import { toCii } from './einvoice/cii.ts';
import { toUbl } from './einvoice/ubl.ts';
import type { DocumentModel } from './model.ts';
import { renderPdf } from './pdf/render.ts';

export type EinvoiceOutcome = { xml: string } | { missing: string[] };

export interface RenderedDocuments {
  pdf: Uint8Array;
  ubl: EinvoiceOutcome;
  cii: EinvoiceOutcome;
}

function einvoice(model: DocumentModel, syntax: 'ubl' | 'cii'): EinvoiceOutcome {
  const missing = missingEinvoiceData(model, syntax);
  if (missing.length > 0) return { missing };
  return { xml: syntax === 'ubl' ? toUbl(model) : toCii(model) };
}

export async function renderIssuedDocuments(model: DocumentModel): Promise<RenderedDocuments> {
  if (model.draft) throw new RangeError('a draft has no issued documents');
  const ubl = einvoice(model, 'ubl');
  const cii = einvoice(model, 'cii');
  const pdf = await renderPdf(model, 'xml' in cii ? { facturX: cii.xml } : {});
  return { pdf, ubl, cii };
}
