-- The backlogs /metrics shows at every scrape (src/mail/backlog.ts, src/webhooks/backlog.ts):
-- messages and deliveries still waiting, the oldest of them, and those failed for good. Both
-- tables keep every sent message and made delivery, so a count must not read them whole: these
-- partial indexes hold only the waiting and failed rows, and an index-only scan of one costs
-- what the backlog is. Rows leave them as they are sent or delivered (one index entry more per
-- row while it waits, next to the worker's own *_due index).
CREATE INDEX mail_outbox_backlog ON mail_outbox (status, created_at)
  WHERE status IN ('queued', 'failed');
CREATE INDEX webhook_deliveries_backlog ON webhook_deliveries (status, created_at)
  WHERE status IN ('pending', 'failed');
