// The official validators, run over directories of documents: the XML Schemas with xmllint
// (Debian libxml2-utils), the Schematron rule sets compiled to XSLT with Saxon-HE (Debian
// libsaxonhe-java), one JVM per rule set for all documents, the rule sets side by side.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Artefacts {
  ublInvoiceXsd: string;
  ublCreditNoteXsd: string;
  ciiXsd: string;
  enUblXslt: string;
  enCiiXslt: string;
  peppolUblXslt: string;
}

export function artefactsIn(dir: string): Artefacts {
  const files: Artefacts = {
    ublInvoiceXsd: path.join(dir, 'ubl-2.1/xsd/maindoc/UBL-Invoice-2.1.xsd'),
    ublCreditNoteXsd: path.join(dir, 'ubl-2.1/xsd/maindoc/UBL-CreditNote-2.1.xsd'),
    ciiXsd: path.join(
      dir,
      'en16931/cii/schema/D16B SCRDM (Subset)/uncoupled clm/CII/uncefact/data/standard/CrossIndustryInvoice_100pD16B.xsd',
    ),
    enUblXslt: path.join(dir, 'en16931/ubl/xslt/EN16931-UBL-validation.xslt'),
    enCiiXslt: path.join(dir, 'en16931/cii/xslt/EN16931-CII-validation.xslt'),
    peppolUblXslt: path.join(dir, 'peppol-bis-3/PEPPOL-EN16931-UBL.xslt'),
  };
  const absent = Object.values(files).filter((file) => !existsSync(file));
  if (absent.length > 0) throw new Error(`validation artefacts missing: ${absent.join(', ')}`);
  return files;
}

/** Schema errors per file (0 = valid) for the files given, all against one XSD. */
export async function schemaErrors(xsd: string, files: string[]): Promise<Map<string, string[]>> {
  const errors = new Map(files.map((file) => [file, [] as string[]]));
  if (files.length === 0) return errors;
  let stderr: string;
  try {
    ({ stderr } = await run('xmllint', ['--noout', '--schema', xsd, ...files], {
      maxBuffer: 64 * 1024 * 1024,
    }));
  } catch (error) {
    // xmllint exits non-zero when a file fails; its report is still on stderr.
    const failed = error as { stderr?: string; code?: unknown };
    if (typeof failed.stderr !== 'string' || failed.code === 'ENOENT') throw error;
    stderr = failed.stderr;
  }
  for (const line of stderr.split('\n')) {
    const file = files.find((f) => line.startsWith(`${f}:`));
    if (file) errors.get(file)!.push(line.slice(file.length + 1));
  }
  for (const file of files) {
    if (!stderr.includes(`${file} validates`) && errors.get(file)!.length === 0) {
      errors.get(file)!.push('not validated (see xmllint output)');
    }
  }
  return errors;
}

export interface Assertion {
  id: string;
  flag: string;
  text: string;
}

function attribute(tag: string, name: string): string {
  return new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1] ?? '';
}

/**
 * Runs one compiled Schematron (XSLT → SVRL) over every document in `inputDir` in a single
 * Saxon JVM and returns the failed asserts and successful reports of each document by name.
 */
export async function schematron(
  saxonJar: string,
  xslt: string,
  inputDir: string,
  outputDir: string,
): Promise<Map<string, Assertion[]>> {
  await run(
    'java',
    [
      '-cp',
      saxonJar,
      'net.sf.saxon.Transform',
      `-s:${inputDir}`,
      `-xsl:${xslt}`,
      `-o:${outputDir}`,
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  const results = new Map<string, Assertion[]>();
  for (const name of await readdir(inputDir)) {
    const svrl = await readFile(path.join(outputDir, name), 'utf8');
    // SVRL is the validator's own fixed-shape output: start tags carry id and flag.
    const asserts = [
      ...svrl.matchAll(
        /<svrl:(?:failed-assert|successful-report)\b([^>]*)>(?:\s*<svrl:text>([^<]*))?/g,
      ),
    ].map((m) => ({
      id: attribute(m[1]!, 'id'),
      flag: attribute(m[1]!, 'flag') || 'fatal',
      text: (m[2] ?? '').trim(),
    }));
    results.set(name, asserts);
  }
  return results;
}
