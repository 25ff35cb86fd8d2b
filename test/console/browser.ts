// A person at the console over real HTTP: a cookie jar, forms sent as a browser sends them
// (application/x-www-form-urlencoded, with the page's CSRF token), redirects not followed so
// that tests see them. And "a tenant with a console user of this role".
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createConsoleUsers } from '../../src/console/users.ts';
import type { Role } from '../../src/console/roles.ts';
import { createTenant } from '../../src/tenants/service.ts';
import type { TestServer } from '../helpers.ts';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

export class ConsoleBrowser {
  readonly cookies = new Map<string, string>();
  /** The Set-Cookie headers of the last answer, as sent. */
  lastSetCookies: string[] = [];
  readonly baseUrl: string;

  constructor(baseUrl: string) {
    this.baseUrl = baseUrl;
  }

  async request(method: string, path: string, form?: Record<string, string>): Promise<Answer> {
    const headers: Record<string, string> = {
      cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
    };
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      redirect: 'manual',
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    this.lastSetCookies = res.headers.getSetCookie();
    for (const line of this.lastSetCookies) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return {
      status: res.status,
      headers: res.headers,
      text: await res.text(),
      location: res.headers.get('location'),
    };
  }

  get(path: string): Promise<Answer> {
    return this.request('GET', path);
  }

  /** The CSRF token of the form on the page at `path`. */
  async csrfOf(path: string): Promise<string> {
    const page = await this.get(path);
    const token = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
    assert.ok(token, `no CSRF token on ${path} (${page.status})`);
    return token;
  }

  /** Sends a form of the page at `from` to `to`, with the page's CSRF token. */
  async submit(from: string, to: string, fields: Record<string, string>): Promise<Answer> {
    return this.request('POST', to, { _csrf: await this.csrfOf(from), ...fields });
  }

  async signIn(tenantId: string, email: string, password: string): Promise<Answer> {
    return this.submit('/console/sign-in', '/console/sign-in', {
      tenant: tenantId,
      email,
      password,
    });
  }
}

export const PASSWORD = 'correct horse battery staple';

export function consoleUsersOf(server: TestServer) {
  return createConsoleUsers({
    db: server.db,
    clock: server.clock,
    secrets: server.secrets,
    links: server.links,
  });
}

/** A user of `role` who has accepted the invitation, with the password PASSWORD. */
export async function consoleUser(
  server: TestServer,
  role: Role,
  options: { tenantId?: string; locale?: string } = {},
): Promise<{ tenantId: string; email: string; id: string }> {
  const users = consoleUsersOf(server);
  const tenantId =
    options.tenantId ??
    (await createTenant(server.db, `Tenant ${randomBytes(3).toString('hex')}`)).id;
  const email = `${role}-${randomBytes(4).toString('hex')}@example.com`;
  const invitation = await users.invite(tenantId, { email, role, locale: options.locale });
  const link = invitation.url.slice(invitation.url.lastIndexOf('/') + 1);
  const accepted = await users.accept(link, PASSWORD);
  assert.ok(accepted);
  return { tenantId, email, id: accepted.id };
}

/** A browser signed in as a new user of `role`. */
export async function signedIn(
  server: TestServer,
  role: Role,
  options: { tenantId?: string; locale?: string } = {},
) {
  const user = await consoleUser(server, role, options);
  const browser = new ConsoleBrowser(server.url);
  const answer = await browser.signIn(user.tenantId, user.email, PASSWORD);
  assert.equal(answer.status, 303, answer.text);
  return { browser, user };
}

/**
 * A full-page screenshot into `file`. Headless Chromium now and then answers "Unable to capture
 * screenshot" while its compositor is busy (seen on a loaded machine); the page is the same a
 * moment later, so it is taken once more before the check fails.
 */
export async function screenshot(
  page: { screenshot(options: { path: string; fullPage: boolean }): Promise<unknown> },
  file: string,
): Promise<void> {
  try {
    await page.screenshot({ path: file, fullPage: true });
  } catch (error) {
    if (!String(error).includes('Unable to capture screenshot')) throw error;
    await page.screenshot({ path: file, fullPage: true });
  }
}
