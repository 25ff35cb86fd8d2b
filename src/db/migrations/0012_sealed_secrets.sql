-- No secret is stored in clear (API.md part C). The cursor signing key, which was kept here in
-- clear, is now derived from the server's secrets key, which the database never holds; the
-- table keeps only the check that instances hold that key (src/secrets/check.ts). Webhook
-- signing secrets are sealed by the server at its next start (src/webhooks/endpoints.ts).
DELETE FROM server_secrets WHERE name = 'cursor_hmac';
