// The PDF/A-3b frame of a document: the pdfkit document with its archive conformance (sRGB
// output intent and pdfaid in the XMP, both from pdfkit's `subset` option), dates and file
// identifier fixed by the model so the same model always gives the same bytes, and, for
// e-invoices, the Factur-X / ZUGFeRD attachment with its XMP extension schema.
import { createHash } from 'node:crypto';
import PDFDocument from 'pdfkit';
import type { DocumentModel } from '../model.ts';
import { asFontSource, fontFaces } from './fonts.ts';

export const PRODUCER = 'billing-api';

/** Factur-X 1.0 (= ZUGFeRD 2.x), profile EN 16931: the names its specification fixes. */
export const FACTUR_X = {
  fileName: 'factur-x.xml',
  namespace: 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#',
  conformanceLevel: 'EN 16931',
  version: '1.0',
} as const;

export interface ArchiveOptions {
  /** Document title for the XMP metadata, e.g. "Rechnung INV-000001". */
  title: string;
  /** The CII XML of the same document, embedded as factur-x.xml. */
  facturX?: string;
}

// pdfkit's attachment options take the PDF/A-3 relationship; its type definitions lag behind.
type AttachmentOptions = PDFKit.Mixins.PDFAttachmentOptions & { relationship: 'Alternative' };

export function createArchiveDocument(
  model: DocumentModel,
  options: ArchiveOptions,
): PDFKit.PDFDocument {
  const issuedAt = new Date(model.issuedAt);
  if (Number.isNaN(issuedAt.getTime())) throw new RangeError(`issuedAt '${model.issuedAt}'`);
  const pdfOptions: Omit<PDFKit.PDFDocumentOptions, 'font'> & { font: Buffer } = {
    size: 'A4',
    pdfVersion: '1.7',
    subset: 'PDF/A-3b',
    lang: model.locale,
    // Footers and running headers need the page count, so pages stay in memory until the end.
    bufferPages: true,
    autoFirstPage: false,
    // The default font would be Helvetica, a standard-14 font that PDF/A does not allow.
    font: asFontSource(fontFaces().regular),
    info: { CreationDate: issuedAt, ModDate: issuedAt, Creator: PRODUCER, Producer: PRODUCER },
  };
  // pdfkit's constructor takes the default font as it takes any font source (see fonts.ts).
  const doc = new PDFDocument(pdfOptions as unknown as PDFKit.PDFDocumentOptions);
  // pdfkit derives the file identifier from the info dictionary only; two documents issued in
  // the same second must still differ, so it is a hash of everything the bytes depend on.
  (doc as unknown as { _id: Uint8Array })._id = documentId(model, options.facturX);

  // The title goes into the XMP only: pdfkit copies Info /Title into the XMP without escaping.
  doc.appendXML(`
        <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/">
            <xmp:ModifyDate>${xmpDate(issuedAt)}</xmp:ModifyDate>
        </rdf:Description>
        <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
            <dc:format>application/pdf</dc:format>
            <dc:title><rdf:Alt><rdf:li xml:lang="x-default">${escapeXml(options.title)}</rdf:li></rdf:Alt></dc:title>
        </rdf:Description>`);

  if (options.facturX !== undefined) attachFacturX(doc, options.facturX, issuedAt);
  return doc;
}

function attachFacturX(doc: PDFKit.PDFDocument, xml: string, issuedAt: Date): void {
  const attachment: AttachmentOptions = {
    name: FACTUR_X.fileName,
    type: 'text/xml',
    description: 'Factur-X/ZUGFeRD electronic invoice (EN 16931)',
    relationship: 'Alternative',
    creationDate: issuedAt,
    modifiedDate: issuedAt,
  };
  // pdfkit writes the file specification with /AFRelationship, lists it in the catalog's /AF
  // array and in the EmbeddedFiles name tree.
  doc.file(Buffer.from(xml, 'utf8'), attachment);
  // PDF/A requires an extension schema for every XMP property outside the standard schemas.
  doc.appendXML(`
        <rdf:Description rdf:about=""
            xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/"
            xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#"
            xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">
            <pdfaExtension:schemas>
                <rdf:Bag>
                    <rdf:li rdf:parseType="Resource">
                        <pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema>
                        <pdfaSchema:namespaceURI>${FACTUR_X.namespace}</pdfaSchema:namespaceURI>
                        <pdfaSchema:prefix>fx</pdfaSchema:prefix>
                        <pdfaSchema:property>
                            <rdf:Seq>
                                ${extensionProperty('DocumentFileName', 'The name of the embedded XML document')}
                                ${extensionProperty('DocumentType', 'The type of the hybrid document in capital letters, e.g. INVOICE or ORDER')}
                                ${extensionProperty('Version', 'The actual version of the standard applying to the embedded XML document')}
                                ${extensionProperty('ConformanceLevel', 'The conformance level of the embedded XML document')}
                            </rdf:Seq>
                        </pdfaSchema:property>
                    </rdf:li>
                </rdf:Bag>
            </pdfaExtension:schemas>
        </rdf:Description>
        <rdf:Description rdf:about="" xmlns:fx="${FACTUR_X.namespace}">
            <fx:DocumentType>INVOICE</fx:DocumentType>
            <fx:DocumentFileName>${FACTUR_X.fileName}</fx:DocumentFileName>
            <fx:Version>${FACTUR_X.version}</fx:Version>
            <fx:ConformanceLevel>${FACTUR_X.conformanceLevel}</fx:ConformanceLevel>
        </rdf:Description>`);
}

function extensionProperty(name: string, description: string): string {
  return `<rdf:li rdf:parseType="Resource">
                                    <pdfaProperty:name>${name}</pdfaProperty:name>
                                    <pdfaProperty:valueType>Text</pdfaProperty:valueType>
                                    <pdfaProperty:category>external</pdfaProperty:category>
                                    <pdfaProperty:description>${description}</pdfaProperty:description>
                                </rdf:li>`;
}

/** 16 bytes of SHA-256 over the model (keys sorted) and the attachment: the PDF's /ID. */
export function documentId(model: DocumentModel, facturX: string | undefined): Uint8Array {
  const hash = createHash('sha256');
  hash.update(canonicalJson(model));
  hash.update('\n');
  hash.update(facturX ?? '');
  return new Uint8Array(hash.digest().subarray(0, 16));
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function xmpDate(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

function escapeXml(text: string): string {
  // Control characters other than tab and line breaks cannot appear in XML at all.
  return text.replace(/[^\P{Cc}\t\n\r]/gu, '').replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
