// How the tables spread over shards when the database outgrows one server (Citus, sharded by
// tenant). Every table is either a tenant table, distributed by `tenant_id` (it leads the
// primary key, and every unique key and foreign key between tenant tables includes it), or a
// reference table below: small, copied to every node, holding no tenant's data in its key.
// test/db/catalogue.test.ts holds the schema to these lists, and docs/scaling.md explains them.

/** The distribution column of every tenant table (and the hash partition key). */
export const DISTRIBUTION_COLUMN = 'tenant_id';

/** Tables that are not sharded by tenant, and why each is not. */
export const REFERENCE_TABLES: Readonly<Record<string, string>> = {
  schema_migrations:
    "The migrator's ledger of applied migrations: one row per migration, no tenant. On Citus " +
    'it stays on the coordinator, where the migrator runs.',
  server_secrets:
    "Server-wide values every instance reads at start: the check that it holds the database's " +
    'secrets key (src/secrets/check.ts); no tenant owns them, and none is a secret.',
  api_key_lookup:
    "Authentication knows only the secret's hash, not yet the tenant: this table maps the hash " +
    "to the key's tenant and id, so the look-up reads one copy on the node it runs on instead " +
    "of asking every shard, and the key itself is then read from its tenant's shard. Written " +
    'with the key, in the same transaction; it has no foreign key to api_keys (a reference ' +
    'table cannot refer to a sharded one).',
  hosted_invoice_link_lookup:
    'The hosted invoice page knows only the token of its link, not yet the tenant: this table ' +
    "maps the token's hash to the link's tenant, environment and invoice, as api_key_lookup " +
    "does for keys; the link is then read by its primary key on its tenant's shard. Written " +
    'and deleted with the link, in the same transaction; no foreign key.',
};

/**
 * Indexes of tenant tables that do not lead with tenant_id: the queries they serve span every
 * tenant by design, so on Citus they run on every shard (each shard has its own part of the
 * index). Not unique, so they do not constrain the distribution.
 */
export const CROSS_TENANT_INDEXES: Readonly<Record<string, string>> = {
  idempotency_keys_by_age:
    'The purge job deletes stored Idempotency-Key results of every tenant by age; on Citus ' +
    'the delete runs on each shard in parallel.',
  invoices_overdue_due:
    'The overdue job finds open invoices of every tenant whose due date has passed and that ' +
    'have not had invoice.overdue yet (a small partial index); on Citus each shard is searched.',
  document_renders_due:
    "The document worker's queue: issued invoices and credit notes of every tenant whose " +
    'documents are still to be rendered, oldest due first (polled per shard on Citus, as the ' +
    'mail outbox is).',
  mail_outbox_due:
    "The mail worker's queue: queued messages of every tenant, oldest due first, claimed as " +
    'the webhook worker claims its deliveries (and polled per shard on Citus likewise).',
  webhook_deliveries_due:
    "The webhook worker's queue: due deliveries of every tenant, oldest first, claimed with " +
    "FOR UPDATE SKIP LOCKED. On Citus each shard's queue is polled on its own (a row lock is " +
    'only taken by a single-shard query).',
  subscriptions_due:
    "The subscription run's queue: subscriptions of every tenant on real time whose next " +
    'boundary, trial end, cancellation or pause end has come, earliest first (polled per shard ' +
    'on Citus, as the mail outbox is).',
  subscription_invoices_work_due:
    "The subscription run's invoice work: drafts of every tenant whose grace period has ended, " +
    'and issued ones still to be sent, voided or marked uncollectible, earliest first.',
  subscriptions_standing_changed:
    'Subscriptions of every tenant whose invoices became overdue or stopped being open since ' +
    'the run last looked (it then sets past_due or active): a small partial index.',
  test_clocks_advancing:
    'Test clocks of every tenant whose advance is under way, for a worker to go on with one a ' +
    'crash cut short: a small partial index, usually empty.',
  mail_outbox_backlog:
    'The mail backlog /metrics shows (queued and failed messages of every tenant, the oldest ' +
    'queued): only waiting and failed rows, so a scrape costs what the backlog is.',
  webhook_deliveries_backlog:
    'The webhook backlog /metrics shows (pending and failed deliveries of every tenant, the ' +
    'oldest pending), likewise.',
};

/**
 * Statements that span tenants by design without such an index, each marked in its SQL with
 * the comment `-- spans tenants: NAME`. On Citus each is a multi-shard statement.
 */
export const CROSS_TENANT_STATEMENTS: Readonly<Record<string, string>> = {
  'newly overdue':
    'The overdue run finds which tenants have open invoices past their due date whose ' +
    'invoice.overdue is still to be recorded (index invoices_overdue_due, a short range below ' +
    'today), then visits each tenant alone: one multi-shard read every few minutes.',
  'keys last used':
    'The key verifier writes the lastUsedAt of every key it saw in the last 10 s, whatever ' +
    'their tenants, in one statement: one multi-shard update per instance every 10 s instead ' +
    'of one statement per tenant.',
  'reminder schedules':
    "The reminder job reads every tenant's schedule (its settings rows that have one) to know " +
    'which tenants to visit: a few rows, every few minutes.',
  'endpoint secrets reseal':
    'Sealing every webhook signing secret under a new secrets key pages through all ' +
    'endpoints in primary-key order: at start and by `billing secrets reseal`, rare.',
  'mail backlog':
    "/metrics counts the mail outbox's queued and failed messages of every tenant at each " +
    'scrape (index mail_outbox_backlog): per-tenant figures are not needed there.',
  'webhook backlog':
    '/metrics counts the pending and failed webhook deliveries of every tenant at each scrape ' +
    '(index webhook_deliveries_backlog).',
  'hosted links reseal':
    'The same pass for the sealed tokens of hosted invoice links (src/hosted/links.ts): every ' +
    'link sealed under a previous key, in primary-key order, at start and by the same command.',
};

/** The marker of a statement in CROSS_TENANT_STATEMENTS, as its SQL carries it. */
export const CROSS_TENANT_MARKER = /-- spans tenants: ([a-z ]+)/;
