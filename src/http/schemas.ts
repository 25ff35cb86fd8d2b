// Schemas shared by every module: the error envelope, ids in paths, metadata, timestamps.
import { Type, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { ERROR_CODES } from '../errors.ts';

export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.Union(
          ERROR_CODES.map((c) => Type.Literal(c)),
          {
            description: 'Stable across releases: clients branch on it.',
          },
        ),
        message: Type.String({ description: 'For humans; may change.' }),
        param: Type.Optional(Type.String({ description: 'The parameter at fault.' })),
        requestId: Type.String(),
        requiredScope: Type.Optional(Type.String()),
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
  const out: Record<number, TSchema> = {};
  for (const status of [400, 401, 403, 408, 429, 431, 500, 503, ...statuses]) {
    out[status] = Type.Ref('ErrorEnvelope');
  }
  return out;
}

/**
 * `T` or null. Where T has a single JSON type this is `type: [T, "null"]` rather than
 * `anyOf`: the same for validation and OpenAPI 3.1, and much cheaper for the response
 * serialiser (fast-json-stringify tries each `anyOf` branch with a validator).
 */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const type = (schema as { type?: unknown }).type;
  if (typeof type === 'string')
    return Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'] });
  return Type.Unsafe<Static<T> | null>(Type.Union([schema, Type.Null()]));
}

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC' });
export const NullableTimestamp = Nullable(Timestamp);
export const Environment = Type.Union([Type.Literal('live'), Type.Literal('test')]);

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

// Query strings are validated as strings, not coerced: "1e2", "1.5" or " 7" are refused rather
// than silently read as numbers, and a repeated parameter (an array) is refused too.
export const PageQuery = {
  limit: Type.Optional(
    Type.String({
      pattern: '^(100|[1-9][0-9]?)$',
      description: 'Page size, an integer from 1 to 100 (default 25).',
      examples: ['25'],
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

export function Page<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    nextCursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass as `cursor` for the next page; null on the last page.',
    }),
  });
}
