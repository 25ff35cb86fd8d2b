// A customer as the API shows it (schemas.ts, Customer), written as JSON text straight from its
// row read as text (src/db/text-rows.ts): the hot reads (one customer, a page of them) then
// parse no column and build no object to serialise again. Its jsonb columns are already JSON
// and hold exactly the schema's fields (what the service stores: a normalised address,
// validated tax ids, metadata and electronic address), so they go in as they are; their keys
// come in jsonb's order, which JSON leaves free. test/customers/customer-json.test.ts holds
// it to customerFromRow's answer.
import { isoInstant, jsonString } from '../db/text-rows.ts';
import type { CustomerTextRow } from './store.ts';

export function customerJson(row: CustomerTextRow): string {
  return (
    `{"id":${JSON.stringify(row.id)},"object":"customer","name":${jsonString(row.name)}` +
    `,"email":${jsonString(row.email)},"phone":${jsonString(row.phone)}` +
    `,"address":${row.address ?? 'null'},"description":${jsonString(row.description)}` +
    `,"metadata":${row.metadata},"taxIds":${row.tax_ids},"taxExempt":"${row.tax_exempt}"` +
    `,"locale":${jsonString(row.locale)},"buyerReference":${jsonString(row.buyer_reference)}` +
    `,"electronicAddress":${row.electronic_address ?? 'null'}` +
    `,"timeZone":${jsonString(row.time_zone)},"testClockId":${jsonString(row.test_clock_id)}` +
    `,"environment":"${row.environment}","createdAt":"${isoInstant(row.created_at)}"` +
    `,"updatedAt":"${isoInstant(row.updated_at)}"}`
  );
}
