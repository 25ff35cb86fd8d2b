// Customer rules: validation beyond the schema, PATCH semantics, events.
import type { Db, Queryable } from '../db/pool.ts';
import { existingRowById } from '../db/row-by-id.ts';
import { unitOfWork, type WriteRequest, type Written } from '../db/unit-of-work.ts';
import { checkedTimeZone } from '../dates.ts';
import { ParameterInvalidError, ResourceMissingError } from '../errors.ts';
import { newId } from '../ids.ts';
import { checkedTestClock } from '../test-clocks/time.ts';
import { checkedLocale } from '../documents/i18n.ts';
import type { TenantScope } from '../tenancy.ts';
import { JsonText } from '../json-text.ts';
import { customerJson } from './customer-json.ts';
import type { Address, Customer, CustomerCreate, CustomerUpdate } from './schemas.ts';
import {
  insertCustomer,
  selectCustomer,
  selectCustomerClocks,
  selectCustomers,
  selectCustomerPage,
  selectCustomerText,
  updateCustomer as updateCustomerRow,
  type CustomerFields,
  type CustomerRow,
} from './store.ts';

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

/** ISO 3166-1 alpha-2, as the platform's ICU knows it (it returns unknown codes unchanged). */
export function isCountryCode(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && regionNames.of(code) !== code;
}

/**
 * The time zone whose local calendar the customer's periods follow: its own, else the
 * tenant's (settings). A subscription reads it once, when it is created, and keeps it.
 */
export function customerTimeZone(
  customer: Pick<CustomerRow, 'time_zone'>,
  settings: { time_zone: string },
): string {
  return customer.time_zone ?? settings.time_zone;
}

export function customerFromRow(row: CustomerRow): Customer {
  return {
    id: row.id,
    object: 'customer',
    name: row.name,
    email: row.email,
    phone: row.phone,
    address: row.address,
    description: row.description,
    metadata: row.metadata,
    taxIds: row.tax_ids,
    taxExempt: row.tax_exempt,
    locale: row.locale,
    buyerReference: row.buyer_reference,
    electronicAddress: row.electronic_address && {
      scheme: row.electronic_address.scheme,
      value: row.electronic_address.value,
    },
    timeZone: row.time_zone,
    testClockId: row.test_clock_id,
    environment: row.environment,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function normaliseAddress(
  address: CustomerCreate['address'] | null | undefined,
): CustomerRow['address'] {
  if (!address) return null;
  if (address.country != null && !isCountryCode(address.country)) {
    throw new ParameterInvalidError(
      'address.country',
      `Unknown country code '${address.country}'.`,
    );
  }
  return {
    line1: address.line1 ?? null,
    line2: address.line2 ?? null,
    city: address.city ?? null,
    state: address.state ?? null,
    postalCode: address.postalCode ?? null,
    country: address.country ?? null,
  };
}

/**
 * An address with its fields in the API's order: a stored one (jsonb) comes back with its keys
 * in another, which events and stored answers would show.
 */
export function orderedAddress(a: Address): Address {
  return {
    line1: a.line1,
    line2: a.line2,
    city: a.city,
    state: a.state,
    postalCode: a.postalCode,
    country: a.country,
  };
}

export function createCustomer(
  db: Db,
  request: WriteRequest,
  input: CustomerCreate,
): Promise<Written<Customer>> {
  return unitOfWork(db, request, async (uow) => {
    const row = await insertCustomer(uow.tx, uow.actor, newId('cus'), {
      name: input.name ?? null,
      email: input.email ?? null,
      phone: input.phone ?? null,
      address: normaliseAddress(input.address),
      description: input.description ?? null,
      metadata: input.metadata ?? {},
      tax_ids: input.taxIds ?? [],
      tax_exempt: input.taxExempt ?? 'none',
      locale: input.locale === undefined ? null : checkedLocale(input.locale),
      buyer_reference: input.buyerReference ?? null,
      electronic_address: input.electronicAddress ?? null,
      time_zone: input.timeZone === undefined ? null : checkedTimeZone(input.timeZone, 'timeZone'),
      test_clock_id:
        input.testClockId === undefined
          ? null
          : await checkedTestClock(uow.tx, uow.actor, input.testClockId),
    });
    const customer = customerFromRow(row);
    uow.event('customer.created', customer);
    return customer;
  });
}

const loadCustomer = existingRowById(selectCustomer, 'customer');
const loadCustomerText = existingRowById(selectCustomerText, 'customer');

/** The customer as the API shows it, as JSON text (./customer-json.ts). */
export async function getCustomer(
  db: Queryable,
  scope: TenantScope,
  id: string,
): Promise<JsonText> {
  return new JsonText(customerJson(await loadCustomerText(db, scope, id)));
}

/** The customer as an object (pages that show its fields rather than send its JSON). */
export async function readCustomer(
  db: Queryable,
  scope: TenantScope,
  id: string,
): Promise<Customer> {
  return customerFromRow(await loadCustomer(db, scope, id));
}

/** The customer row, locked for the transaction (invoices freeze a snapshot of it). */
export async function getCustomerRow(
  tx: Queryable,
  scope: TenantScope,
  id: string,
  param = 'customerId',
): Promise<CustomerRow> {
  const row = await selectCustomer(tx, scope, id);
  if (!row) throw new ResourceMissingError('customer', id, param);
  return row;
}

/** The test clock (or null) of each customer among `ids`, by id; unknown ids are left out. */
export async function getCustomerClocks(
  db: Queryable,
  scope: TenantScope,
  ids: readonly string[],
): Promise<Map<string, string | null>> {
  const rows = await selectCustomerClocks(db, scope, ids);
  return new Map(rows.map((row) => [row.id, row.test_clock_id]));
}

/** The customers with these ids, by id, in one query (unknown ids are left out). */
export async function getCustomerRows(
  db: Queryable,
  scope: TenantScope,
  ids: readonly string[],
): Promise<Map<string, CustomerRow>> {
  const rows = await selectCustomers(db, scope, ids);
  return new Map(rows.map((row) => [row.id, row]));
}

export function updateCustomer(
  db: Db,
  request: WriteRequest,
  id: string,
  patch: CustomerUpdate,
): Promise<Written<Customer>> {
  return unitOfWork(db, request, async (uow) => {
    const current = await loadCustomer(uow.tx, uow.actor, id, { forUpdate: true });
    // A field absent from the body keeps its value; null clears it.
    const pick = <K extends keyof CustomerUpdate, V>(
      key: K,
      now: V,
      map: (v: NonNullable<CustomerUpdate[K]>) => V,
      cleared: V,
    ): V => {
      const value = patch[key];
      if (value === undefined) return now;
      if (value === null) return cleared;
      return map(value as NonNullable<CustomerUpdate[K]>);
    };
    const fields: CustomerFields = {
      name: pick('name', current.name, (v) => v, null),
      email: pick('email', current.email, (v) => v, null),
      phone: pick('phone', current.phone, (v) => v, null),
      address: patch.address === undefined ? current.address : normaliseAddress(patch.address),
      description: pick('description', current.description, (v) => v, null),
      metadata: pick('metadata', current.metadata, (v) => v, {}),
      tax_ids: pick('taxIds', current.tax_ids, (v) => v, []),
      tax_exempt: patch.taxExempt ?? current.tax_exempt,
      locale: pick('locale', current.locale, (v) => checkedLocale(v), null),
      buyer_reference: pick('buyerReference', current.buyer_reference, (v) => v, null),
      electronic_address: pick('electronicAddress', current.electronic_address, (v) => v, null),
      time_zone: pick('timeZone', current.time_zone, (v) => checkedTimeZone(v, 'timeZone'), null),
      // Set at creation only: a customer does not move between clocks (or off one: deleting
      // the clock does that).
      test_clock_id: current.test_clock_id,
    };
    const customer = customerFromRow(await updateCustomerRow(uow.tx, uow.actor, id, fields));
    uow.event('customer.updated', customer);
    return customer;
  });
}

/**
 * One page of customers, newest first, by e-mail if asked (the store's page reader): rows as
 * text, each written by customerJson.
 */
export const listCustomers = selectCustomerPage;
