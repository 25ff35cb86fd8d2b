-- A stored e-invoice that is not well-formed XML (written before every text was escaped, e.g. a
-- name holding `&e;`) is replaced by the same document rendered again from the data frozen at
-- issue (docs/einvoices.md, "Documents stored before escaping"). The record itself does not
-- change; the replacement is marked on the row: when, and the SHA-256 of the bytes it replaced.
ALTER TABLE documents
  ADD COLUMN repaired_at     timestamptz(3),
  ADD COLUMN replaced_sha256 bytea,
  ADD CHECK ((repaired_at IS NULL) = (replaced_sha256 IS NULL));
