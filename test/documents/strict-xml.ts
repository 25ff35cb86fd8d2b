// Reading produced XML in tests with a strict XML 1.0 parser (saxes): anything not well-formed
// (an undefined entity, a character XML cannot carry, a stray `<`) throws. Gives every leaf
// element's text and every attribute value, keyed by the element's local name.
import { SaxesParser } from 'saxes';

export interface XmlLeaves {
  /** Local element name → the texts of the leaf elements of that name, in document order. */
  texts: Map<string, string[]>;
  /** Every attribute value (namespace declarations left out), in document order. */
  attributes: string[];
}

export function readXmlStrictly(xml: string): XmlLeaves {
  const texts = new Map<string, string[]>();
  const attributes: string[] = [];
  const open: { name: string; text: string; parent: boolean }[] = [];
  const parser = new SaxesParser({ xmlns: true });
  parser.on('error', (error) => {
    throw error;
  });
  parser.on('opentag', (tag) => {
    if (open.length > 0) open[open.length - 1]!.parent = true;
    for (const attribute of Object.values(tag.attributes)) {
      if (attribute.prefix !== 'xmlns' && attribute.name !== 'xmlns') {
        attributes.push(attribute.value);
      }
    }
    open.push({ name: tag.local, text: '', parent: false });
  });
  parser.on('text', (text) => {
    if (open.length > 0) open[open.length - 1]!.text += text;
  });
  parser.on('closetag', () => {
    const element = open.pop()!;
    if (element.parent) return;
    texts.set(element.name, [...(texts.get(element.name) ?? []), element.text]);
  });
  parser.write(xml).close();
  return { texts, attributes };
}

/** Every leaf text of the document, whatever its element. */
export function allTexts(leaves: XmlLeaves): string[] {
  return [...leaves.texts.values()].flat();
}
