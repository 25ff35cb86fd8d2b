import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createTestDatabase, databaseEnv, startTestServer } from '../helpers.ts';
import { billing } from '../cli/billing.ts';
import { ConsoleBrowser, PASSWORD } from './browser.ts';

it('invites, lists and removes users with billing users; the printed link sets a password', async () => {
  const url = await createTestDatabase();
  const server = await startTestServer(url);
  const env = { ...databaseEnv(url), PUBLIC_URL: server.url };
  const tenant = JSON.parse(await billing(env, 'tenants', 'create', '--name', 'Acme', '--json'));
  const printed = await billing(
    env,
    ...['users', 'invite', '--tenant', tenant.id, '--email', 'Ada@Example.com', '--role', 'admin'],
  );
  const link = /(http\S+\/console\/invitation\/\S+)/.exec(printed)?.[1];
  assert.ok(link, printed);
  const path = new URL(link).pathname;
  const browser = new ConsoleBrowser(server.url);
  assert.equal(
    (await browser.submit(path, path, { password: PASSWORD, repeat: PASSWORD })).status,
    303,
  );
  assert.equal((await browser.signIn(tenant.id, 'ada@example.com', PASSWORD)).status, 303);

  const listed = JSON.parse(await billing(env, 'users', 'list', '--tenant', tenant.id, '--json'));
  assert.deepEqual(
    listed.map((u: { email: string; role: string; active: boolean }) => [
      u.email,
      u.role,
      u.active,
    ]),
    [['ada@example.com', 'admin', true]],
  );
  await billing(env, 'users', 'remove', listed[0].id, '--tenant', tenant.id, '--json');
  assert.equal((await browser.get('/console')).location, '/console/sign-in');
  // The invitation went to the mail outbox too, without the link in its stored text.
  const { rows } = await server.db.query(
    "SELECT recipient, body FROM mail_outbox WHERE kind = 'console_invitation'",
  );
  assert.equal(rows.length, 1);
  assert.equal(rows[0].recipient, 'ada@example.com');
  assert.ok(!rows[0].body.includes('/console/invitation/'));
});
