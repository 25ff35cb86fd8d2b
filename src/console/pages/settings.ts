// Settings (admins; docs/console.md, "Settings"): the tenant's settings in the session's
// environment, changed through the settings service as PATCH /v1/settings does (its event
// naming the person). The form's fields carry the API's own constraints; a field left empty
// clears an optional setting.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Composition } from '../../composition.ts';
import { Address } from '../../customers/schemas.ts';
import { LOCALES } from '../../documents/model.ts';
import { ParameterInvalidError } from '../../errors.ts';
import { SettingsUpdate } from '../../settings/schemas.ts';
import { consoleRoute, consoleWrite, sessionOf, showPage, textOf } from '../page.ts';

const api = SettingsUpdate.properties;
const payment = api.paymentDetails.properties;
/** A form field: empty, or what the API accepts for it. */
const field = (schema: TSchema) => Type.Union([Type.Literal(''), schema]);

const TEXT_FIELDS = {
  legalName: api.legalName,
  taxId: api.taxId,
  companyRegistration: api.companyRegistration,
  email: api.email,
  phone: api.phone,
  paymentTerms: api.paymentTerms,
} as const;
const PAYMENT_FIELDS = {
  iban: payment.iban,
  bic: payment.bic,
  accountName: payment.accountName,
  instructions: payment.instructions,
} as const;
const ADDRESS_FIELDS = ['line1', 'line2', 'postalCode', 'city', 'state', 'country'] as const;
const address = Address.properties;

const SettingsForm = Type.Object({
  _csrf: Type.Optional(Type.String()),
  idempotencyKey: Type.String({ maxLength: 100 }),
  ...Object.fromEntries(Object.entries(TEXT_FIELDS).map(([k, s]) => [k, field(s)])),
  ...Object.fromEntries(Object.entries(PAYMENT_FIELDS).map(([k, s]) => [k, field(s)])),
  ...Object.fromEntries(
    ADDRESS_FIELDS.map((k) => [
      k,
      k === 'country' ? field(Type.String({ maxLength: 2 })) : field(address[k]),
    ]),
  ),
  invoicePrefix: api.invoicePrefix,
  creditNotePrefix: api.creditNotePrefix,
  locale: api.locale,
  timeZone: api.timeZone,
  reminders: Type.String({ pattern: '^[0-9 ,]*$', maxLength: 100 }),
  invoiceGraceMinutes: Type.String({ pattern: '^[0-9]{1,5}$' }),
});
type SettingsForm = Record<string, string>;
const SavedQuery = Type.Object({ saved: Type.Optional(Type.String({ maxLength: 1 })) });

const nullIfEmpty = (value: string | undefined) => (value?.trim() ? value.trim() : null);

/** The form as the API's PATCH body: every field it shows, empty ones cleared. */
function patchOf(form: SettingsForm): Static<typeof SettingsUpdate> {
  const text = Object.fromEntries(Object.keys(TEXT_FIELDS).map((k) => [k, nullIfEmpty(form[k])]));
  const place = Object.fromEntries(ADDRESS_FIELDS.map((k) => [k, nullIfEmpty(form[k])]));
  if (place.country) place.country = place.country.toUpperCase();
  const grace = Number(form.invoiceGraceMinutes);
  if (grace > api.invoiceGraceMinutes.maximum!) {
    throw new ParameterInvalidError(
      'invoiceGraceMinutes',
      `At most ${api.invoiceGraceMinutes.maximum} minutes (a week).`,
    );
  }
  const reminders = (form.reminders ?? '')
    .split(/[ ,]+/)
    .filter((d) => d !== '')
    .map(Number);
  if (reminders.some((d) => d < 1 || d > 365) || reminders.length > 10) {
    throw new ParameterInvalidError('reminders', 'Up to 10 reminders, each 1 to 365 days.');
  }
  return {
    ...text,
    address: Object.values(place).some((v) => v !== null) ? place : null,
    paymentDetails: Object.fromEntries(
      Object.keys(PAYMENT_FIELDS).map((k) => [k, nullIfEmpty(form[k])]),
    ),
    invoicePrefix: form.invoicePrefix!,
    creditNotePrefix: form.creditNotePrefix!,
    locale: form.locale!,
    timeZone: form.timeZone!,
    reminders: [...new Set(reminders)],
    invoiceGraceMinutes: grace,
  };
}

export async function settingsPages(app: FastifyInstance, { settings }: Composition) {
  app.get(
    '/settings',
    consoleRoute('settings:read', { querystring: SavedQuery }),
    async (request, reply) => {
      const s = await settings.get(sessionOf(request).actor);
      const t = textOf(request);
      const value = (v: string | null | undefined) => v ?? '';
      return showPage(request, reply, 'settings', t('console.settings.title'), {
        saved: (request.query as Static<typeof SavedQuery>).saved === '1',
        values: {
          ...Object.fromEntries(Object.keys(TEXT_FIELDS).map((k) => [k, value(s[k as 'email'])])),
          ...Object.fromEntries(ADDRESS_FIELDS.map((k) => [k, value(s.address?.[k])])),
          ...Object.fromEntries(
            Object.keys(PAYMENT_FIELDS).map((k) => [k, value(s.paymentDetails[k as 'iban'])]),
          ),
          invoicePrefix: s.invoicePrefix,
          creditNotePrefix: s.creditNotePrefix,
          locale: s.locale,
          timeZone: s.timeZone,
          reminders: s.reminders.join(', '),
          invoiceGraceMinutes: String(s.invoiceGraceMinutes),
        },
        locales: LOCALES,
      });
    },
  );

  app.post(
    '/settings',
    consoleRoute('settings:write', { body: SettingsForm }),
    async (request, reply) => {
      const form = request.body as SettingsForm;
      const write = consoleWrite(request, form, () => '/console/settings?saved=1');
      const written = await settings.update(write, patchOf(form));
      return reply.code(303).redirect(write.location(written));
    },
  );
}
