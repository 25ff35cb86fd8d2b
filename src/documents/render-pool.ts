// Rendering off the event loop: a small, fixed-size pool of worker threads (piscina) running
// renderPdf. One tenant's 250-line invoice then costs other tenants' requests nothing but a
// share of the CPU; the API contract requires that PDF rendering not block the event loop.
//
// The worker is a TypeScript file loaded by path: Node 24 strips its types like every other
// module's (erasable syntax only, explicit `.ts` extensions).
import { availableParallelism } from 'node:os';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { DocumentModel } from './model.ts';
import type { PdfAttachments } from './pdf/render.ts';
import type { RenderedDocuments } from './issued.ts';
import type { Rendered, RenderTask } from './render-worker.ts';

export interface RenderPoolOptions {
  /**
   * Worker threads. Default: one fewer than the cores, between 1 and 2 — rendering is
   * CPU-bound, and the event loop and PostgreSQL need a core of their own.
   */
  threads?: number;
  /** A worker idle this long exits; the next render starts one again (~0.1–0.3 s). */
  idleTimeoutMs?: number;
}

export interface RenderPool {
  renderPdf(model: DocumentModel, attachments?: PdfAttachments): Promise<Buffer>;
  /** The PDF and e-invoices of an issued document (./issued.ts). */
  renderIssued(model: DocumentModel): Promise<RenderedDocuments>;
  /** Lets running renders finish, then stops the workers. */
  close(): Promise<void>;
  readonly threads: number;
  /** CPU time the workers spent rendering since the pool started (a Prometheus counter). */
  readonly cpuSeconds: number;
  /** Issued documents rendered since the pool started (renderIssued calls that succeeded). */
  readonly rendered: number;
}

export function defaultRenderThreads(): number {
  return Math.max(1, Math.min(2, availableParallelism() - 1));
}

const WORKER_FILE = fileURLToPath(
  new URL(`./render-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
);

export function createRenderPool(options: RenderPoolOptions = {}): RenderPool {
  const threads = options.threads ?? defaultRenderThreads();
  if (!Number.isInteger(threads) || threads < 1) throw new RangeError(`threads ${threads}`);
  const piscina = new Piscina<RenderTask, Rendered>({
    filename: WORKER_FILE,
    minThreads: 0,
    maxThreads: threads,
    idleTimeout: options.idleTimeoutMs ?? 60_000,
  });
  let cpuMicros = 0;
  let rendered = 0;
  const run = async (task: RenderTask) => {
    const rendered = await piscina.run(task);
    cpuMicros += rendered.cpuMicros;
    return rendered.result;
  };
  return {
    threads,
    get cpuSeconds() {
      return cpuMicros / 1e6;
    },
    get rendered() {
      return rendered;
    },
    async renderPdf(model, attachments = {}) {
      const bytes = (await run({ kind: 'pdf', model, attachments })) as Uint8Array;
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    },
    async renderIssued(model) {
      const documents = (await run({ kind: 'issued', model })) as RenderedDocuments;
      rendered += 1;
      return documents;
    },
    async close() {
      await piscina.close();
    },
  };
}
