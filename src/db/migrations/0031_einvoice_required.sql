-- A tenant may require that every invoice it issues can be an EN 16931 e-invoice: issuing one
-- whose UBL or CII cannot be made is then refused (409 einvoice_incomplete). Off by default,
-- as before.
ALTER TABLE tenant_settings ADD COLUMN einvoice_required boolean NOT NULL DEFAULT false;
