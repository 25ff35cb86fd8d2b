// A worker thread of the render pool (render-pool.ts): renders one document set or one PDF
// per task, so that the layout and compression of a long document never run on the event loop
// that serves requests. Fonts are read once per thread and kept for its lifetime.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { renderIssuedDocuments, type RenderedDocuments } from './issued.ts';
import type { DocumentModel } from './model.ts';
import { renderPdf, type PdfAttachments } from './pdf/render.ts';

// Rendering yields to requests: on Linux each thread has its own nice value, and this one
// takes the lowest priority, so the event loop (and PostgreSQL) get a busy core first and a
// render takes what is left. Elsewhere, or without /proc, it keeps the process's priority.
try {
  const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  if (Number.isInteger(tid) && tid > 0) setPriority(tid, 19);
} catch {
  // not Linux: the render threads share the process's priority
}

export type RenderTask =
  | { kind: 'pdf'; model: DocumentModel; attachments: PdfAttachments }
  | { kind: 'issued'; model: DocumentModel };

export interface Rendered {
  result: Uint8Array | RenderedDocuments;
  /** This thread's CPU time for the task (user + system), reported as a metric. */
  cpuMicros: number;
}

export default async function render(task: RenderTask): Promise<Rendered> {
  const before = process.threadCpuUsage();
  const result =
    task.kind === 'issued'
      ? await renderIssuedDocuments(task.model)
      : await renderPdf(task.model, task.attachments);
  const used = process.threadCpuUsage(before);
  return { result, cpuMicros: used.user + used.system };
}
