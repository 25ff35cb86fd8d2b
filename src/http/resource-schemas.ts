// Schema fragments every resource module states alike: the fields that close a stored object,
// a list's query and an object's id in a filter. Each module's schemas.ts adds only its own.
import { Type, type TProperties } from '@sinclair/typebox';
import { Environment, PageQuery, Timestamp } from './schemas.ts';

/** The fields that close a stored object: its environment, when it was made and last changed. */
export const Stamps = { environment: Environment, createdAt: Timestamp, updatedAt: Timestamp };

/**
 * A stored object as the API shows it: its id (`idDescription`: "cus_…") and `object` name
 * first, its own fields, then its environment and stamps; `title` names its schema.
 */
export function StoredObject<Name extends string, Fields extends TProperties>(
  title: string,
  object: Name,
  idDescription: string,
  fields: Fields,
) {
  return Type.Object(
    {
      id: Type.String({ description: idDescription }),
      object: Type.Literal(object),
      ...fields,
      ...Stamps,
    },
    { title },
  );
}

/** A list's query: the page (limit, cursor), then the list's own filters, and nothing else. */
export function ListQuery<Filters extends TProperties>(filters: Filters) {
  return Type.Object({ ...PageQuery, ...filters }, { additionalProperties: false });
}

/** A list's filter on `active`; `things` names what the list holds ("products"). */
export const ActiveFilter = (things: string) =>
  Type.Optional(
    Type.Boolean({ description: `true or false: only active or only inactive ${things}.` }),
  );

/** An object's id where a query or body names one (`cus_…`, `inv_…`). */
export const ObjectId = (description?: string) =>
  Type.String({ minLength: 1, maxLength: 100, ...(description ? { description } : {}) });
