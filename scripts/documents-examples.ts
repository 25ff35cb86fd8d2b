// `npm run documents:examples`: renders the worked examples (test/documents/fixtures.ts) into
// ./data/examples as PDF, and as PNG pages at 60 dpi when poppler's pdftoppm is installed, for
// people to look at. The German reverse-charge invoice is rendered as a Factur-X hybrid.
import { execFileSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { renderPdf } from '../src/documents/pdf/render.ts';
import { sampleCii, WORKED_EXAMPLES } from '../test/documents/fixtures.ts';

export const EXAMPLES_DIR = path.resolve('data/examples');
export const FACTUR_X_EXAMPLE = 'de-reverse-charge';

export async function writeExamples(): Promise<string[]> {
  await rm(EXAMPLES_DIR, { recursive: true, force: true });
  await mkdir(EXAMPLES_DIR, { recursive: true });
  const files: string[] = [];
  for (const [name, model] of Object.entries(WORKED_EXAMPLES)) {
    const facturX = name === FACTUR_X_EXAMPLE ? sampleCii(model) : undefined;
    const file = path.join(EXAMPLES_DIR, `${name}.pdf`);
    await writeFile(file, await renderPdf(model, { facturX }));
    files.push(file);
  }
  return files;
}

function hasPdftoppm(): boolean {
  try {
    execFileSync('pdftoppm', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const files = await writeExamples();
  const png = hasPdftoppm();
  for (const file of files) {
    if (png) execFileSync('pdftoppm', ['-r', '60', '-png', file, file.replace(/\.pdf$/, '')]);
    console.log(path.relative(process.cwd(), file));
  }
  if (!png) console.log('pdftoppm not found (Debian: poppler-utils): no PNG pages written');
}
