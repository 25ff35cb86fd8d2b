// The XML builder both syntaxes share (xmlbuilder2: escaping, namespaces and serialisation
// by a maintained library, never by string concatenation).
import { create } from 'xmlbuilder2';

export type XmlElement = ReturnType<typeof create>;

/** A new document whose root element is in `namespace` and declares the given prefixes. */
export function xmlDocument(
  namespace: string,
  root: string,
  prefixes: Record<string, string>,
): XmlElement {
  // XML 1.0 cannot carry control characters a JSON string may hold: they become U+FFFD.
  const doc = create({ version: '1.0', encoding: 'UTF-8', invalidCharReplacement: '\uFFFD' });
  const attributes = Object.fromEntries(
    Object.entries(prefixes).map(([prefix, uri]) => [`xmlns:${prefix}`, uri]),
  );
  return doc.ele(namespace, root, attributes);
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
  parent.ele(name, attributes).txt(text);
}

/** The document's text: indented, UTF-8, the same for the same input. */
export function serialize(root: XmlElement): string {
  return root.end({ prettyPrint: true }) + '\n';
}
