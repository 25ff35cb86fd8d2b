-- A stored e-invoice that is not well-formed XML (written before every text was escaped, e.g. a
-- name holding `&e;`) is replaced by the same document rendered again from the data frozen at
-- issue (docs/einvoices.md, "Documents stored before escaping"). The record itself does not
-- change; the replacement is marked on the row: when, and the SHA-256 of the bytes it replaced.
ALTER TABLE documents
  ADD COLUMN repaired_at     timestamptz(3),
  ADD COLUMN replaced_sha256 bytea,
  ADD CHECK ((repaired_at IS NULL) = (replaced_sha256 IS NULL));

-- Which stored e-invoices have been read back as well-formed: those stored from now on are (the
-- renderer reads every XML document back before it is stored), those stored before are checked
-- once, on their first read, so that a read does not parse the XML every time.
ALTER TABLE documents ADD COLUMN xml_checked boolean NOT NULL DEFAULT false;
ALTER TABLE documents ALTER COLUMN xml_checked SET DEFAULT true;
