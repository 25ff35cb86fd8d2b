// The XML builder both syntaxes share (xmlbuilder2: namespaces and serialisation by a
// maintained library, never by string concatenation), and the check every document passes
// before it leaves here: a strict XML 1.0 parser (saxes) reads it back, and every text and
// attribute must read back as exactly what was written.
import { SaxesParser } from 'saxes';
import { create } from 'xmlbuilder2';
import { documentText } from '../document-text.ts';

export type XmlElement = ReturnType<typeof create>;

/** What each document's leaves must read back as, in document order. */
const written = new WeakMap<object, string[]>();

function expectations(element: XmlElement): string[] {
  const doc = element.node.ownerDocument ?? element.node;
  let values = written.get(doc);
  if (!values) written.set(doc, (values = []));
  return values;
}

/** A new document whose root element is in `namespace` and declares the given prefixes. */
export function xmlDocument(
  namespace: string,
  root: string,
  prefixes: Record<string, string>,
): XmlElement {
  // leaf() has already replaced what XML cannot carry (document-text.ts); this is a backstop.
  const doc = create({ version: '1.0', encoding: 'UTF-8', invalidCharReplacement: '\uFFFD' });
  const attributes = Object.fromEntries(
    Object.entries(prefixes).map(([prefix, uri]) => [`xmlns:${prefix}`, uri]),
  );
  return doc.ele(namespace, root, attributes);
}

// xmlbuilder2 leaves an `&` alone when it looks like a reference (`&e;`, `&#1;`, `&lt;`), so
// text typed as `Smith &e; Ltd` would come out unescaped and break the document. Every `&` is
// therefore escaped here (the writer keeps the `&amp;` it then sees), as are the characters a
// parser would otherwise normalise: CR in text (read as LF), and TAB, LF and CR in attribute
// values (read as spaces). The writer escapes `<`, `>` and `"` itself.
function escapedText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/\r/g, '&#13;');
}

function escapedAttribute(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;');
}

/**
 * Adds `name` with `text` under `parent`, unless the text is null or blank: Peppol refuses
 * empty elements (PEPPOL-EN16931-R008), and an absent optional term is simply left out.
 */
export function leaf(
  parent: XmlElement,
  name: string,
  text: string | null | undefined,
  attributes?: Record<string, string>,
): void {
  if (text === null || text === undefined || text.trim() === '') return;
  const values = expectations(parent);
  const escaped: Record<string, string> = {};
  for (const [key, value] of Object.entries(attributes ?? {})) {
    values.push(documentText(value));
    escaped[key] = escapedAttribute(documentText(value));
  }
  values.push(documentText(text));
  parent.ele(name, escaped).txt(escapedText(documentText(text)));
}

/**
 * Thrown when a document does not read back as written: a defect of this code, never of the
 * data, so nothing broken is stored and the failure is loud.
 */
export class MalformedXmlError extends Error {
  override name = 'MalformedXmlError';
}

/** The leaves' attribute values and texts of `xml` in document order, by a strict parser. */
function readBack(xml: string): string[] {
  const values: string[] = [];
  // Per open element: its text so far, and whether it has child elements.
  const open: { text: string; parent: boolean }[] = [];
  const parser = new SaxesParser({ xmlns: true });
  parser.on('error', (error) => {
    throw new MalformedXmlError(`the XML written is not well-formed: ${error.message}`);
  });
  parser.on('opentag', (tag) => {
    if (open.length > 0) open[open.length - 1]!.parent = true;
    if (open.length > 0) {
      for (const attribute of Object.values(tag.attributes)) {
        if (attribute.prefix !== 'xmlns' && attribute.name !== 'xmlns') {
          values.push(attribute.value);
        }
      }
    }
    open.push({ text: '', parent: false });
  });
  parser.on('text', (text) => {
    if (open.length > 0) open[open.length - 1]!.text += text;
  });
  parser.on('closetag', () => {
    const element = open.pop()!;
    if (!element.parent && element.text !== '') values.push(element.text);
  });
  parser.write(xml).close();
  return values;
}

/** The document's text: indented, UTF-8, the same for the same input, checked (see above). */
export function serialize(root: XmlElement): string {
  const xml = root.end({ prettyPrint: true }) + '\n';
  const expected = written.get(root.node.ownerDocument ?? root.node) ?? [];
  const actual = readBack(xml);
  const at = expected.findIndex((value, i) => value !== actual[i]);
  if (at >= 0 || actual.length !== expected.length) {
    const i = at >= 0 ? at : Math.min(expected.length, actual.length);
    throw new MalformedXmlError(
      `the XML written reads back as ${JSON.stringify(actual[i])} where ${JSON.stringify(expected[i])} was written`,
    );
  }
  return xml;
}
