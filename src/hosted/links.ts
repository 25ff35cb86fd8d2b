// Hosted invoice links: capability URLs, `{PUBLIC_URL}/i/{token}`, that open one issued
// invoice's page without a login (docs/api.md, "The hosted invoice page"). Whoever holds the URL sees the invoice, so
// the token is a secret:
// - 192 random bits (the contract asks for at least 128), base64url: 32 characters.
// - At rest only its SHA-256, which finds the link, and the token sealed under the server's
//   secrets key (src/secrets/keyring.ts), so the API can show the URL again on every read while
//   a copy of the database alone yields no working link. A sealed token is bound to its tenant,
//   environment and invoice: copied into another row it does not open.
// - Never in an event, a stored idempotent result in clear, or a queued e-mail: events carry
//   invoices without it, results that show it are sealed under the server's key (and replayed
//   only to the very key that made the request), and the invoice e-mail gets it when it is
//   sent (src/invoices/mail.ts).
// - Valid until 120 days after the due date (the issue date when there is none), and never for
//   less than 120 days from when the link was made, so a link replaced long after the due date
//   still works. Replacing a link makes the old one stop at once (src/hosted/store.ts).
import { systemClock, type Clock } from '../clock.ts';
import { createHash, randomBytes } from 'node:crypto';
import type { Db, Queryable } from '../db/pool.ts';
import type { SecretsKeyring } from '../secrets/keyring.ts';
import { resealColumn } from '../secrets/reseal.ts';
import type { TenantScope } from '../tenancy.ts';
import { selectLinkByHash, selectLinks, upsertLink } from './store.ts';

const TOKEN_BYTES = 24;
/** What a token looks like: anything else is refused before the database is asked. */
const TOKEN = /^[A-Za-z0-9_-]{32}$/;
export const LINK_VALID_DAYS = 120;
const DAY_MS = 86_400_000;

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/**
 * When a link stops working: at the end of the 120th day after the due date (or the issue
 * date), or after the day the link was made when that is later. Days are UTC days.
 */
export function linkExpiry(dueDate: string | null, issuedAt: string, madeAt: Date): Date {
  const made = madeAt.toISOString().slice(0, 10);
  const due = dueDate ?? issuedAt.slice(0, 10);
  const from = due > made ? due : made;
  return new Date(Date.parse(`${from}T00:00:00Z`) + (LINK_VALID_DAYS + 1) * DAY_MS);
}

function context(scope: TenantScope, invoiceId: string): string {
  return `hosted invoice link\n${scope.tenantId}\n${scope.environment}\n${invoiceId}`;
}

/** What a link is made from: the issued invoice's id and dates. */
export interface LinkedInvoice {
  id: string;
  dueDate: string | null;
  issuedAt: string | null;
}

export interface ResolvedLink {
  scope: TenantScope;
  invoiceId: string;
}

/** The links' sealed tokens (see CROSS_TENANT_STATEMENTS). */
const SEALED_TOKENS = {
  table: 'hosted_invoice_links',
  key: 'invoice_id',
  column: 'token_sealed',
  marker: 'hosted links reseal',
};

export class HostedLinks {
  readonly #secrets: SecretsKeyring;
  readonly #baseUrl: () => string;
  readonly #clock: Clock;

  /** `baseUrl`: PUBLIC_URL, or the server's own address (./public-url.ts); read on each use. */
  constructor(secrets: SecretsKeyring, baseUrl: () => string, clock: Clock = systemClock) {
    this.#secrets = secrets;
    this.#baseUrl = baseUrl;
    this.#clock = clock;
  }

  /** The address the server's links start with (PUBLIC_URL or the listening address). */
  origin(): string {
    return this.#baseUrl();
  }

  url(token: string): string {
    return `${this.#baseUrl()}/i/${token}`;
  }

  /**
   * Makes the invoice's link, replacing the one it had, in the caller's transaction (which
   * holds the invoice's row lock); returns the new URL. `first`: the invoice is being issued
   * and has none yet (nothing to replace, nothing read).
   */
  async make(
    tx: Queryable,
    scope: TenantScope,
    invoice: LinkedInvoice,
    now = this.#clock.now(),
    { first = false }: { first?: boolean } = {},
  ): Promise<string> {
    const token = randomBytes(TOKEN_BYTES).toString('base64url');
    const link = {
      invoiceId: invoice.id,
      tokenHash: hashToken(token),
      tokenSealed: this.#secrets.seal(token, context(scope, invoice.id)),
      expiresAt: linkExpiry(invoice.dueDate, invoice.issuedAt ?? now.toISOString(), now),
    };
    await upsertLink(tx, scope, link, first);
    return this.url(token);
  }

  /**
   * The URLs of these invoices' links that work now. A link that has expired, or whose token
   * is sealed under a key this server no longer has, has none.
   */
  async urls(
    db: Queryable,
    scope: TenantScope,
    invoiceIds: readonly string[],
    now = this.#clock.now(),
  ): Promise<Map<string, string>> {
    const urls = new Map<string, string>();
    for (const link of await selectLinks(db, scope, invoiceIds)) {
      if (link.expires_at <= now) continue;
      const url = this.urlOf(scope, link.invoice_id, link.token_sealed);
      if (url) urls.set(link.invoice_id, url);
    }
    return urls;
  }

  /** The URL of one invoice's link that works now (null: none), as `urls` gives it. */
  async urlFor(db: Queryable, scope: TenantScope, invoiceId: string): Promise<string | null> {
    return (await this.urls(db, scope, [invoiceId])).get(invoiceId) ?? null;
  }

  /**
   * The URL of a working link from its sealed token, read with the invoice (null: none). A
   * token sealed under a key that is gone has none: the link still works for whoever holds
   * it, but the API cannot show it any more; POST /hosted-link makes a new one.
   */
  urlOf(scope: TenantScope, invoiceId: string, sealed: string | null): string | null {
    if (sealed === null) return null;
    try {
      return this.url(this.#secrets.open(sealed, context(scope, invoiceId)));
    } catch {
      return null;
    }
  }

  /** The invoice a token opens, or null: malformed, unknown, replaced or expired. */
  async resolve(
    db: Queryable,
    token: string,
    now = this.#clock.now(),
  ): Promise<ResolvedLink | null> {
    if (!TOKEN.test(token)) return null;
    const link = await selectLinkByHash(db, hashToken(token));
    if (!link || link.expiresAt <= now) return null;
    return {
      scope: { tenantId: link.tenantId, environment: link.environment },
      invoiceId: link.invoiceId,
    };
  }

  /**
   * Seals every token sealed under a previous key under the current one; returns how many.
   * Run at start while a key rotation is under way (SECRETS_KEY_PREVIOUS), and by `billing
   * secrets reseal`. A token no key of the ring opens is left as it is.
   */
  reseal(db: Db): Promise<number> {
    return resealColumn(db, this.#secrets, SEALED_TOKENS, (link, scope) => {
      let token: string;
      try {
        token = this.#secrets.open(link.sealed, context(scope, link.key));
      } catch {
        return null;
      }
      return this.#secrets.seal(token, context(scope, link.key));
    });
  }
}
