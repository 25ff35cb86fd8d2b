// Run by render-pool.test.ts in a child process with no loader flags: renders one worked example
// through the pool, proving that the worker loads under the runtime's own TypeScript support.
import { createRenderPool } from '../../src/documents/render-pool.ts';
import { polishInvoice } from './fixtures.ts';

const pool = createRenderPool({ threads: 1 });
try {
  const pdf = await pool.renderPdf(polishInvoice);
  console.log(JSON.stringify({ bytes: pdf.length, header: pdf.subarray(0, 8).toString('latin1') }));
} finally {
  await pool.close();
}
