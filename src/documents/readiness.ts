// E-invoice readiness of any issued document: whether its model makes EN 16931 e-invoices,
// judged by the very rules that refuse an e-invoice request with 409 einvoice_incomplete
// (./einvoice/completeness.ts), so that what a document shows and what its e-invoice request
// answers cannot disagree.
import { EinvoiceIncompleteError } from '../errors.ts';
import type { EinvoiceReadiness } from '../invoices/schemas.ts';
import type { EinvoiceSyntax } from './einvoice/codes.ts';
import { einvoiceGaps, gapFields } from './einvoice/completeness.ts';
import type { DocumentModel } from './model.ts';

/** The fields the model lacks for either e-invoice, sorted by path. */
export function readinessOf(model: DocumentModel): EinvoiceReadiness {
  const missing = gapFields(einvoiceGaps(model));
  return { ready: missing.length === 0, missing };
}

/**
 * The 409 einvoice_incomplete for `missing`, each field with the reasons the rules give for
 * the model (for one syntax, or both as readiness judges them).
 */
export function einvoiceRefusal(
  missing: readonly string[],
  model: DocumentModel,
  options: { syntax?: EinvoiceSyntax; issuing?: boolean } = {},
): EinvoiceIncompleteError {
  const reasons = einvoiceGaps(model, options.syntax);
  return new EinvoiceIncompleteError(missing, { reasons, issuing: options.issuing ?? false });
}
