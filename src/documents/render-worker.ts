// A worker thread of the render pool (render-pool.ts): renders one PDF per task, so that the
// layout and compression of a long document never run on the event loop that serves requests.
// Fonts are read once per thread and kept for its lifetime.
import type { DocumentModel } from './model.ts';
import { renderPdf, type PdfAttachments } from './pdf/render.ts';

export interface RenderTask {
  model: DocumentModel;
  attachments: PdfAttachments;
}

export default async function render(task: RenderTask): Promise<Uint8Array> {
  return renderPdf(task.model, task.attachments);
}
