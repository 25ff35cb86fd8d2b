// The Factur-X side of an issued document's PDF (API.md part C): when the document has a CII
// e-invoice, the PDF embeds exactly that XML as factur-x.xml (AFRelationship /Alternative,
// listed in the catalogue's /AF); when it has none, the PDF carries no attachment at all.
import { PdfFile } from '../../test/documents/pdf-reader.ts';

/** What is wrong with the PDF's attachment given the CII served (null: the CII was refused). */
export function facturXProblems(pdf: Buffer, cii: Buffer | null): string[] {
  const file = new PdfFile(pdf);
  const associated = file.refs(file.catalog, 'AF');
  const embedded = file.find(/\/Type\s*\/EmbeddedFile\b/);
  if (!cii) {
    return associated.length === 0 && embedded.length === 0
      ? []
      : [`pdf: ${embedded.length} embedded files without a CII e-invoice`];
  }
  if (associated.length !== 1 || embedded.length !== 1) {
    return [`pdf: ${associated.length} associated and ${embedded.length} embedded files, not 1`];
  }
  const problems: string[] = [];
  const spec = file.object(associated[0]!).dictionary;
  if (!/\/F \(factur-x\.xml\)/.test(spec) || !/\/UF \(factur-x\.xml\)/.test(spec))
    problems.push('pdf: the attachment is not named factur-x.xml');
  if (!/\/AFRelationship \/Alternative/.test(spec))
    problems.push('pdf: the attachment is not AFRelationship /Alternative');
  const stream = /\/EF\s*<<\s*\/F (\d+ 0 R)/.exec(spec)?.[1];
  const xml = stream ? file.object(stream).stream : null;
  if (!xml?.equals(cii)) problems.push('pdf: factur-x.xml differs from the CII served');
  if (!/<fx:DocumentFileName>factur-x\.xml<\/fx:DocumentFileName>/.test(file.xmp))
    problems.push('pdf: the XMP metadata does not name factur-x.xml');
  return problems;
}
