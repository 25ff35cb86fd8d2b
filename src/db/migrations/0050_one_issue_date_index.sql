-- invoices_by_issue (0022) and invoices_revenue_by_issue (0048) index the same rows (issued
-- invoices) under the same key (tenant, environment, issued_at); the second also carries the
-- currency, total and status for the overview's index-only read. Every range of issue dates
-- (the VAT report, the console's invoices by issue date) is served by it as well, so the first
-- is dropped: an issue, which sets issued_at, then updates one index fewer.
DROP INDEX IF EXISTS invoices_by_issue;
