import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { INVITATION_HOURS } from '../../src/console/users.ts';
import { createTestDatabase, drivenClock, startTestServer } from '../helpers.ts';
import { ConsoleBrowser, consoleUser, consoleUsersOf, PASSWORD, signedIn } from './browser.ts';

const clock = drivenClock(new Date('2027-03-01T09:00:00Z'));
const server = await startTestServer(await createTestDatabase(), {}, undefined, clock);

describe('signing in and out', () => {
  it('signs in with the right password, sets a __Host- session cookie, and signs out', async () => {
    const user = await consoleUser(server, 'finance');
    const browser = new ConsoleBrowser(server.url);
    assert.equal((await browser.get('/console')).location, '/console/sign-in');
    const answer = await browser.signIn(user.tenantId, user.email, PASSWORD);
    assert.equal(answer.status, 303);
    assert.equal(answer.location, '/console');
    const cookie = browser.lastSetCookies.find((c) => c.startsWith('__Host-billing_session='));
    assert.ok(cookie);
    assert.match(cookie, /; Path=\//);
    assert.match(cookie, /; HttpOnly/);
    assert.match(cookie, /; Secure/);
    assert.match(cookie, /; SameSite=Lax/);
    assert.doesNotMatch(cookie, /Domain=/i);
    const overview = await browser.get('/console');
    assert.equal(overview.status, 200);
    assert.match(overview.text, new RegExp(user.email));

    const out = await browser.submit('/console', '/console/sign-out', {});
    assert.equal(out.status, 303);
    assert.equal((await browser.get('/console')).location, '/console/sign-in');
  });

  it('makes a new session id at every sign-in: a planted cookie is never adopted', async () => {
    const user = await consoleUser(server, 'viewer');
    const browser = new ConsoleBrowser(server.url);
    const planted = `${user.tenantId}.${'A'.repeat(43)}`;
    browser.cookies.set('__Host-billing_session', planted);
    await browser.signIn(user.tenantId, user.email, PASSWORD);
    const first = browser.cookies.get('__Host-billing_session');
    assert.ok(first && first !== planted);
    await browser.signIn(user.tenantId, user.email, PASSWORD);
    const second = browser.cookies.get('__Host-billing_session');
    assert.ok(second && second !== first);
    // The planted value opens nothing.
    const other = new ConsoleBrowser(server.url);
    other.cookies.set('__Host-billing_session', planted);
    assert.equal((await other.get('/console')).location, '/console/sign-in');
  });

  it('answers an unknown e-mail as a wrong password: same status and text, comparable time', async () => {
    const user = await consoleUser(server, 'viewer');
    const wrong = new ConsoleBrowser(server.url);
    const unknown = new ConsoleBrowser(server.url);
    const times = { wrong: [] as number[], unknown: [] as number[] };
    for (let i = 0; i < 5; i++) {
      let start = performance.now();
      const a = await wrong.signIn(user.tenantId, user.email, 'not the password at all');
      times.wrong.push(performance.now() - start);
      start = performance.now();
      const b = await unknown.signIn(user.tenantId, `nobody-${i}@example.com`, 'not the password');
      times.unknown.push(performance.now() - start);
      assert.equal(a.status, 401);
      assert.equal(b.status, 401);
      const message = (text: string) => /<p class="error"[^>]*>([^<]*)</.exec(text)?.[1];
      assert.equal(message(a.text), message(b.text));
      assert.ok(message(a.text));
    }
    // Both check a password with Argon2id (the unknown address against a dummy hash): the
    // medians are within a factor of three on a busy machine, where skipping the hash (about
    // 30 ms of the answer) would make the unknown address's several times faster.
    const median = (xs: number[]) => xs.sort((x, y) => x - y)[2]!;
    const ratio = median(times.wrong) / median(times.unknown);
    assert.ok(ratio > 1 / 3 && ratio < 3, `wrong ${times.wrong} unknown ${times.unknown}`);
  });

  it('throttles an account after 5 failures, for a known and an unknown address alike', async () => {
    const user = await consoleUser(server, 'viewer');
    for (const email of [user.email, 'ghost@example.com']) {
      const browser = new ConsoleBrowser(server.url);
      for (let i = 0; i < 5; i++) {
        assert.equal((await browser.signIn(user.tenantId, email, 'wrong password')).status, 401);
      }
      const refused = await browser.signIn(
        user.tenantId,
        email,
        email === user.email ? PASSWORD : 'x',
      );
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.headers.get('retry-after')) > 0);
    }
    // The window passes (the server's clock): the right password works again.
    clock.advance(15 * 60_000 + 1000);
    const browser = new ConsoleBrowser(server.url);
    assert.equal((await browser.signIn(user.tenantId, user.email, PASSWORD)).status, 303);
  });

  it('refuses a form without a valid CSRF token with 403, and signs nobody in', async () => {
    const user = await consoleUser(server, 'admin');
    const browser = new ConsoleBrowser(server.url);
    await browser.get('/console/sign-in');
    for (const token of [undefined, 'forged-token']) {
      const answer = await browser.request('POST', '/console/sign-in', {
        ...(token ? { _csrf: token } : {}),
        tenant: user.tenantId,
        email: user.email,
        password: PASSWORD,
      });
      assert.equal(answer.status, 403);
      assert.match(answer.headers.get('content-type') ?? '', /text\/html/);
      assert.equal(browser.cookies.has('__Host-billing_session'), false);
    }
    // A token made before sign-in does not serve the signed-in session.
    const before = await browser.csrfOf('/console/sign-in');
    await browser.signIn(user.tenantId, user.email, PASSWORD);
    const out = await browser.request('POST', '/console/sign-out', { _csrf: before });
    assert.equal(out.status, 403);
  });

  it('ends a session after 12 hours without a request', async () => {
    const { browser } = await signedIn(server, 'viewer');
    clock.advance(11 * 3_600_000);
    assert.equal((await browser.get('/console')).status, 200);
    clock.advance(12 * 3_600_000 + 1000);
    assert.equal((await browser.get('/console')).location, '/console/sign-in');
  });
});

describe('invitations', () => {
  it('sets the password once through the link; a second use is refused', async () => {
    const users = consoleUsersOf(server);
    const { tenantId } = await consoleUser(server, 'admin');
    const invitation = await users.invite(tenantId, { email: 'new@example.com', role: 'finance' });
    const path = new URL(invitation.url).pathname;
    const browser = new ConsoleBrowser(server.url);
    assert.equal((await browser.get(path)).status, 200);
    const set = await browser.submit(path, path, { password: PASSWORD, repeat: PASSWORD });
    assert.equal(set.status, 303);
    assert.equal(set.location, `/console/sign-in?tenant=${tenantId}`);
    assert.equal((await browser.signIn(tenantId, 'new@example.com', PASSWORD)).status, 303);
    const again = await new ConsoleBrowser(server.url).submit(path, path, {
      password: 'another password 123',
      repeat: 'another password 123',
    });
    assert.equal(again.status, 404);
  });

  it(`expires after ${INVITATION_HOURS} hours`, async () => {
    const users = consoleUsersOf(server);
    const { tenantId } = await consoleUser(server, 'admin');
    const invitation = await users.invite(tenantId, { email: 'late@example.com', role: 'viewer' });
    const path = new URL(invitation.url).pathname;
    clock.advance(INVITATION_HOURS * 3_600_000 + 1000);
    const browser = new ConsoleBrowser(server.url);
    const answer = await browser.submit(path, path, { password: PASSWORD, repeat: PASSWORD });
    assert.equal(answer.status, 404);
    assert.equal((await browser.signIn(tenantId, 'late@example.com', PASSWORD)).status, 401);
  });
});
