// A worker thread of the render pool (render-pool.ts): renders one document set or one PDF
// per task, so that the layout and compression of a long document never run on the event loop
// that serves requests. Fonts are read once per thread and kept for its lifetime.
import { renderIssuedDocuments, type IssuedDocuments } from './issued.ts';
import type { DocumentModel } from './model.ts';
import { renderPdf, type PdfAttachments } from './pdf/render.ts';

export type RenderTask =
  | { kind: 'pdf'; model: DocumentModel; attachments: PdfAttachments }
  | { kind: 'issued'; model: DocumentModel };

export default async function render(task: RenderTask): Promise<Uint8Array | IssuedDocuments> {
  return task.kind === 'issued'
    ? renderIssuedDocuments(task.model)
    : renderPdf(task.model, task.attachments);
}
