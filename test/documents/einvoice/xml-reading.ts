// Reading the generated XML back in tests: a DOM parsed by xmlbuilder2, paths of prefixed
// element names, and decimal text as exact integers (never floats).
import { create } from 'xmlbuilder2';

const NAMESPACES: Record<string, string> = {
  cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
  cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
  inv: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
  cn: 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2',
  rsm: 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
  ram: 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100',
  udt: 'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100',
  qdt: 'urn:un:unece:uncefact:data:standard:QualifiedDataType:100',
};

export interface XmlNode {
  namespaceURI: string | null;
  localName: string;
  textContent: string | null;
  childNodes: ArrayLike<XmlNode> & Iterable<XmlNode>;
  nodeType: number;
  getAttribute(name: string): string | null;
}

export function parseXml(xml: string): XmlNode {
  return (create(xml).node as unknown as { documentElement: XmlNode }).documentElement;
}

function matches(node: XmlNode, step: string): boolean {
  const [prefix, local] = step.split(':') as [string, string];
  return (
    node.nodeType === 1 && node.namespaceURI === NAMESPACES[prefix] && node.localName === local
  );
}

/** Every element reached from `node` by the child steps of `path` ("cac:Party/cbc:Name"). */
export function all(node: XmlNode, path: string): XmlNode[] {
  let nodes = [node];
  for (const step of path.split('/')) {
    nodes = nodes.flatMap((n) => [...n.childNodes].filter((c) => matches(c, step)));
  }
  return nodes;
}

/** The text of the one element at `path`, or null when there is none. */
export function text(node: XmlNode, path: string): string | null {
  const found = all(node, path);
  if (found.length > 1) throw new Error(`${path}: ${found.length} elements`);
  return found[0]?.textContent ?? null;
}

export function isIn(node: XmlNode, prefix: string, local: string): boolean {
  return node.namespaceURI === NAMESPACES[prefix] && node.localName === local;
}

/** Decimal text as an exact integer of millionths: "12.5" → 12500000n. */
export function micros(value: string | null): bigint {
  return scaled(value, 6);
}

/** Decimal text as an exact count of 10^-places; an error for any more decimals. */
export function scaled(value: string | null, places: number): bigint {
  if (value === null) throw new Error('no value');
  const match = new RegExp(`^(-?)(\\d+)(?:\\.(\\d{1,${places}}))?$`).exec(value);
  if (!match) throw new Error(`not a decimal with up to ${places} places: ${value}`);
  const magnitude =
    BigInt(match[2]!) * 10n ** BigInt(places) + BigInt((match[3] ?? '').padEnd(places, '0'));
  return match[1] ? -magnitude : magnitude;
}
