// Schemas shared by every module: the error envelope, ids in paths, metadata, timestamps.
import {
  Type,
  type SchemaOptions,
  type Static,
  type TSchema,
  type TUnsafe,
} from '@sinclair/typebox';
import { ERROR_CODES } from '../errors.ts';

/**
 * One of a fixed set of strings, as `enum` (a union of literals would be an `anyOf` of
 * `const`s: slower to validate, and generators turn it into a union of one-value types).
 */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: SchemaOptions = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object(
      {
        code: StringEnum(ERROR_CODES, {
          description: 'Stable across releases: clients branch on it.',
        }),
        message: Type.String({ description: 'For humans; may change.' }),
        param: Type.Optional(Type.String({ description: 'The parameter at fault.' })),
        requestId: Type.String(),
        requiredScope: Type.Optional(
          Type.String({ description: 'With `scope_insufficient`: the scope the key lacks.' }),
        ),
        missing: Type.Optional(
          Type.Array(Type.String(), {
            description:
              'With `einvoice_incomplete`: the fields an EN 16931 e-invoice needs, e.g. `seller.taxId`.',
          }),
        ),
      },
      { additionalProperties: true },
    ),
  },
  { $id: 'ErrorEnvelope', title: 'Error' },
);

/**
 * The error responses every authenticated route may give, for the OpenAPI document. 408 and
 * 431 come from the connection itself: a request too slow to arrive, or headers over 16 KiB.
 */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  return refs([400, 401, 403, 408, 429, 431, 500, 503, ...statuses]);
}

/**
 * The error responses of a route that needs no key: an unknown query parameter (400), the
 * connection's 408 and 431, a failure, and 503 while the server shuts down.
 */
export function openRouteResponses(...statuses: number[]): Record<number, TSchema> {
  return refs([400, 408, 431, 500, 503, ...statuses]);
}

function refs(statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const status of statuses) out[status] = Type.Ref('ErrorEnvelope');
  return out;
}

/**
 * `T` or null. Where T has a single JSON type this is `type: [T, "null"]` rather than
 * `anyOf`: the same for validation and OpenAPI 3.1, and much cheaper for the response
 * serialiser (fast-json-stringify tries each `anyOf` branch with a validator).
 */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const { type, enum: values } = schema as { type?: unknown; enum?: unknown[] };
  if (typeof type === 'string')
    return Type.Unsafe<Static<T> | null>({
      ...schema,
      type: [type, 'null'],
      ...(values ? { enum: [...values, null] } : {}),
    });
  return Type.Unsafe<Static<T> | null>(Type.Union([schema, Type.Null()]));
}

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC' });
export const NullableTimestamp = Nullable(Timestamp);
export const Environment = StringEnum(['live', 'test'], {
  description: 'The environment of the key that made the object.',
});

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

// Metadata: at most 50 keys of up to 40 characters, string values of up to 500 characters.
export const Metadata = Type.Record(Type.String(), Type.String({ maxLength: 500 }), {
  maxProperties: 50,
  // TypeBox drops constraints on a record's key schema, so the key limits are stated here.
  propertyNames: { minLength: 1, maxLength: 40 },
  description: 'Up to 50 keys (1–40 characters) with string values (≤ 500 characters).',
});

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        'Makes the request safe to retry: 1–255 printable ASCII characters, kept 24 hours, scoped to the tenant and environment.',
    }),
  ),
});

/**
 * For writes that take no body (actions, DELETE): none, or `{}`; any field is unknown and
 * refused (400 parameter_invalid) rather than silently ignored.
 */
export const NoBody = Type.Object({}, { additionalProperties: false });

/** For routes that take no query parameters: any parameter is unknown. */
export const NoQuery = Type.Object({}, { additionalProperties: false });

// Query parameters arrive as text: a route's integer and boolean parameters are read from
// their canonical text only (./query.ts), so "1e2", "1.5", " 7" or a repeated parameter are
// refused as before while the document types `limit` as the integer it is.
export const PageQuery = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100,
      description: 'Page size, an integer from 1 to 100 (default 25).',
      examples: [25],
    }),
  ),
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1000,
      description: 'The `nextCursor` of the previous page, as it was returned.',
    }),
  ),
};

/** The query of a list without filters: paging only. */
export const ListQuery = Type.Object(PageQuery, { additionalProperties: false });

/** A page of a list; its item schema has a title (`Invoice` → `InvoicePage`). */
export function Page<T extends TSchema>(item: T) {
  if (!item.title) throw new Error('Page(item): the item schema needs a title');
  return Type.Object(
    {
      data: Type.Array(item),
      nextCursor: Nullable(
        Type.String({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
      ),
    },
    { title: `${item.title}Page` },
  );
}
