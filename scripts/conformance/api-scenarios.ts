// What the conformance run asks the API to issue: sellers in Germany, the Netherlands, Spain,
// France and Austria, each set up over HTTP as a user would, billing buyers in a dozen countries.
// Together the documents use every VAT category the API offers (S with one and several rates,
// Z, E, AE from a reverse-charge customer and from an AE rate, K, G, O, L, M), invoices and
// credit notes (of an amount, and of invoice lines on invoices with several rates), inclusive
// and exclusive prices, discount lines, units of measure, supply dates and service periods,
// buyer references and purchase orders, electronic addresses given and derived from VAT ids,
// JPY and KWD; and documents the API must refuse, with the fields it must name.
import type { ApiDocument } from './api-documents.ts';
import type { ConformanceServer } from './api-server.ts';
import { austrianSeller } from './sellers/austria.ts';
import { frenchSeller } from './sellers/france.ts';
import { germanSeller } from './sellers/germany.ts';
import { dutchSeller } from './sellers/netherlands.ts';
import { spanishSeller } from './sellers/spain.ts';

/** Every seller's documents, issued through the API and read back. */
export async function apiDocuments(server: ConformanceServer): Promise<ApiDocument[]> {
  const sellers = [germanSeller, dutchSeller, spanishSeller, frenchSeller, austrianSeller];
  return (await Promise.all(sellers.map((seller) => seller(server)))).flat();
}
