// The settings subscriptions read: the tenant's time zone and the grace period of the invoices
// they make, over PATCH /v1/settings.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { client, createTenantWithKey, startTestApp } from '../helpers.ts';
import { assertError } from '../invoices/fixtures.ts';

const server = await startTestApp();

async function tenant() {
  const key = await createTenantWithKey(server.db, {
    scopes: ['settings:read', 'settings:write'],
  });
  return client(server.url, key.secret);
}

describe('settings: time zone and invoice grace period', () => {
  it('starts in UTC with a grace period of 60 minutes', async () => {
    const settings = await (await tenant()).get('/v1/settings');
    assert.equal(settings.status, 200, settings.text);
    assert.equal(settings.body.timeZone, 'UTC');
    assert.equal(settings.body.invoiceGraceMinutes, 60);
  });

  it('takes an IANA time zone, in its canonical spelling, and a grace period from 0 to a week', async () => {
    const api = await tenant();
    const set = await api.patch('/v1/settings', {
      timeZone: 'europe/berlin',
      invoiceGraceMinutes: 0,
    });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.timeZone, 'Europe/Berlin');
    assert.equal(set.body.invoiceGraceMinutes, 0);
    const week = await api.patch('/v1/settings', {
      timeZone: 'America/Argentina/Ushuaia',
      invoiceGraceMinutes: 10_080,
    });
    assert.equal(week.status, 200, week.text);
    const read = await api.get('/v1/settings');
    assert.equal(read.body.timeZone, 'America/Argentina/Ushuaia');
    assert.equal(read.body.invoiceGraceMinutes, 10_080);
  });

  it('refuses a time zone that does not exist, or an offset, and changes nothing', async () => {
    const api = await tenant();
    await api.patch('/v1/settings', { timeZone: 'Asia/Tokyo', invoiceGraceMinutes: 15 });
    for (const timeZone of ['Mars/Olympus', '+01:00', 'Europe/Berlinn', '']) {
      const refused = await api.patch('/v1/settings', { timeZone, invoiceGraceMinutes: 30 });
      assertError(refused, 400, 'parameter_invalid', 'timeZone');
    }
    const read = await api.get('/v1/settings');
    assert.equal(read.body.timeZone, 'Asia/Tokyo');
    assert.equal(read.body.invoiceGraceMinutes, 15);
  });

  it('refuses a grace period below 0, above a week or not in whole minutes', async () => {
    const api = await tenant();
    for (const invoiceGraceMinutes of [-1, 10_081, 1.5, '60']) {
      const refused = await api.patch('/v1/settings', { invoiceGraceMinutes });
      assertError(refused, 400, 'parameter_invalid', 'invoiceGraceMinutes');
    }
    assert.equal((await api.get('/v1/settings')).body.invoiceGraceMinutes, 60);
  });
});
