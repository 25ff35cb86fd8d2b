// Schema fragments every resource module states alike: the fields that close a stored object,
// a list's query and an object's id in a filter. Each module's schemas.ts adds only its own.
import { Type, type TProperties } from '@sinclair/typebox';
import { Environment, PageQuery, Timestamp } from './schemas.ts';

/** The fields that close a stored object: its environment, when it was made and last changed. */
export const Stamps = { environment: Environment, createdAt: Timestamp, updatedAt: Timestamp };

/** A list's query: the page (limit, cursor), then the list's own filters, and nothing else. */
export function ListQuery<Filters extends TProperties>(filters: Filters) {
  return Type.Object({ ...PageQuery, ...filters }, { additionalProperties: false });
}

/** An object's id where a query or body names one (`cus_…`, `inv_…`). */
export const ObjectId = (description?: string) =>
  Type.String({ minLength: 1, maxLength: 100, ...(description ? { description } : {}) });
