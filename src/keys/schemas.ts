// API key schemas: they validate requests, type the handlers and feed the OpenAPI document.
import { Type } from '@sinclair/typebox';
import {
  Environment,
  Nullable,
  NullableTimestamp,
  StringEnum,
  Timestamp,
} from '../http/schemas.ts';
import { SCOPES } from './scopes.ts';

export const ScopeName = StringEnum(SCOPES, {
  description: 'A scope; a key can grant only scopes it holds itself.',
});

export const Identity = Type.Object(
  {
    tenantId: Type.String({ description: 'ten_…' }),
    environment: Environment,
    scopes: Type.Array(ScopeName),
  },
  { title: 'Identity' },
);

const ApiKeyFields = {
  id: Type.String({ description: 'key_…' }),
  object: Type.Literal('api_key'),
  name: Nullable(Type.String()),
  tenantId: Type.String(),
  environment: Environment,
  scopes: Type.Array(ScopeName),
  redacted: Type.String({ description: 'The secret with all but its last 4 characters hidden.' }),
  rotatedFrom: Nullable(Type.String({ description: 'The key this one replaced by rotation.' })),
  createdAt: Timestamp,
  lastUsedAt: Nullable(Type.String({ format: 'date-time', description: 'To the minute.' })),
  expiresAt: NullableTimestamp,
  revokedAt: NullableTimestamp,
};
export const ApiKey = Type.Object(ApiKeyFields, { title: 'ApiKey' });

export const IssuedApiKey = Type.Object(
  {
    ...ApiKeyFields,
    secret: Type.String({ description: 'sk_test_… / sk_live_…: shown this once only.' }),
  },
  { title: 'IssuedApiKey' },
);

export const ApiKeyCreate = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    scopes: Type.Array(ScopeName, { minItems: 1, maxItems: SCOPES.length }),
  },
  {
    additionalProperties: false,
    title: 'ApiKeyCreate',
    examples: [{ name: 'Nightly export', scopes: ['customers:read', 'invoices:read'] }],
  },
);

export const ApiKeyRotate = Type.Object(
  {
    expireOldInSeconds: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 90 * 86400, description: 'At most 90 days.' }),
    ),
  },
  {
    additionalProperties: false,
    title: 'ApiKeyRotate',
    examples: [{ expireOldInSeconds: 3600 }],
  },
);
