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
  /** Heap limits of each worker thread (see RENDER_THREAD_LIMITS). */
  resourceLimits?: { maxOldGenerationSizeMb?: number; maxYoungGenerationSizeMb?: number };
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

/**
 * Each render thread's heap: 16 MB of young generation, 96 MB of old. Without limits V8 sizes a
 * thread's heap to its allocation rate and a render thread grew the process by about 300 MB
 * (120 invoices of 1 to 250 lines, four at a time); with these, by about 140 MB, renders of
 * 1 and 20 lines take as long as before and one of 250 lines up to a fifth longer (more
 * collections). A 1,000-line document (four times the most an invoice has) still renders. A
 * render that outgrew them would fail and be tried again, never stored broken.
 */
export const RENDER_THREAD_LIMITS = { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 96 };

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
    resourceLimits: options.resourceLimits ?? RENDER_THREAD_LIMITS,
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
