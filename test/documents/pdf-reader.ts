// Just enough of a PDF reader for the tests to inspect what the renderer wrote: the objects
// (found through the cross-reference table), their dictionaries as text, their streams
// inflated, and the text of each page as a reader extracts it (pdf.js through unpdf).
import { inflateSync } from 'node:zlib';
import { extractText, getDocumentProxy } from 'unpdf';

export interface PdfObject {
  dictionary: string;
  stream: Buffer | null;
}

export class PdfFile {
  readonly bytes: Buffer;
  readonly objects = new Map<number, PdfObject>();
  readonly trailer: string;

  constructor(bytes: Buffer) {
    this.bytes = bytes;
    const text = bytes.toString('latin1');
    const startXref = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)?.[1]);
    const xref = /^xref\s+0 (\d+)\s+([\s\S]*?)trailer/.exec(text.slice(startXref));
    if (!xref) throw new Error('no cross-reference table');
    const offsets = [...xref[2]!.matchAll(/(\d{10}) \d{5} n/g)].map((m) => Number(m[1]));
    const sorted = [...offsets].sort((a, b) => a - b);
    offsets.forEach((offset, index) => {
      const end = sorted.find((o) => o > offset) ?? startXref;
      this.objects.set(index + 1, parseObject(bytes.subarray(offset, end)));
    });
    this.trailer = text.slice(startXref + xref[0].length - 'trailer'.length);
  }

  object(ref: string | number): PdfObject {
    const id = typeof ref === 'number' ? ref : Number(/(\d+) 0 R/.exec(ref)?.[1]);
    const found = this.objects.get(id);
    if (!found) throw new Error(`no object ${ref}`);
    return found;
  }

  get catalog(): string {
    return this.object(/\/Root (\d+ 0 R)/.exec(this.trailer)![1]!).dictionary;
  }

  /** The ids in the trailer's /ID array, as hex. */
  get fileIds(): string[] {
    return [...(/\/ID \[([^\]]*)\]/.exec(this.trailer)?.[1] ?? '').matchAll(/<([0-9a-f]+)>/gi)].map(
      (m) => m[1]!.toLowerCase(),
    );
  }

  /** The references in an array entry of a dictionary, e.g. refs(catalog, 'AF'). */
  refs(dictionary: string, key: string): string[] {
    const array = new RegExp(`/${key}\\s*\\[([^\\]]*)\\]`).exec(dictionary)?.[1] ?? '';
    return [...array.matchAll(/\d+ 0 R/g)].map((m) => m[0]);
  }

  /** Every object whose dictionary matches. */
  find(pattern: RegExp): PdfObject[] {
    return [...this.objects.values()].filter((o) => pattern.test(o.dictionary));
  }

  get xmp(): string {
    const metadata = this.object(/\/Metadata (\d+ 0 R)/.exec(this.catalog)![1]!);
    return metadata.stream!.toString('utf8');
  }
}

function parseObject(region: Buffer): PdfObject {
  const text = region.toString('latin1');
  const streamAt = text.indexOf('stream\n');
  if (streamAt === -1 || text.lastIndexOf('endstream') === -1) {
    return {
      dictionary: text.replace(/^\d+ 0 obj\s*/, '').replace(/endobj\s*$/, ''),
      stream: null,
    };
  }
  const dictionary = text.slice(0, streamAt).replace(/^\d+ 0 obj\s*/, '');
  const raw = region.subarray(streamAt + 'stream\n'.length, text.lastIndexOf('endstream'));
  const data = raw.subarray(0, raw.length - (raw.at(-1) === 0x0a ? 1 : 0));
  return {
    dictionary,
    stream: /\/Filter \/FlateDecode/.test(dictionary) ? inflateSync(data) : data,
  };
}

/** The text of each page, with the no-break spaces of number formats as plain spaces. */
export async function pageTexts(pdf: Buffer): Promise<string[]> {
  const document = await getDocumentProxy(new Uint8Array(pdf));
  const { text } = await extractText(document, { mergePages: false });
  return text.map((page) => page.replace(/[\u00a0\u202f]/g, ' '));
}

/** The text of the Factur-X attachment a PDF/A-3 carries (its first associated file). */
export function embeddedFacturX(pdf: Buffer): string {
  const file = new PdfFile(pdf);
  const spec = file.object(file.refs(file.catalog, 'AF')[0]!).dictionary;
  if (!/\/F \(factur-x\.xml\)/.test(spec)) {
    throw new Error(`the associated file is not factur-x.xml: ${spec}`);
  }
  return file.object(/\/EF <<\s*\/F (\d+ 0 R)/.exec(spec)![1]!).stream!.toString('utf8');
}
