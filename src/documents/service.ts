// The issued-document service: one for invoices and credit notes alike, made once by the
// composition root (src/composition.ts). It owns what makes a legal document of either kind:
// its gapless number in the kind's series (./numbering.ts), the parties it freezes
// (./frozen.ts), its PDF and e-invoices rendered through the render pool and stored once
// (./records.ts), its e-invoice readiness (./readiness.ts) and its e-mail (./mail.ts). Each
// kind hands in only what is its own: its document model (from what it froze), its number
// and series, and its e-mail's record. Documents are rendered after the issue is answered, by
// the worker (./render-queue.ts) or the first reader (./records.ts).
import type { Clock } from '../clock.ts';
import type { Db } from '../db/pool.ts';
import type { MailKind, MailRow } from '../mail/outbox.ts';
import type { TenantScope } from '../tenancy.ts';
import {
  documentMailKind,
  queueDocumentMail,
  type AttachedPdf,
  type DocumentMail,
} from './mail.ts';
import type { DocumentModel } from './model.ts';
import { nextDocumentNumber } from './numbering.ts';
import { einvoiceRefusal } from './readiness.ts';
import { issuedDocument, issuedDocumentFormats, type ModelOn } from './records.ts';
import type { RenderPool } from './render-pool.ts';
import type { DocumentFormat } from './store.ts';

export type { DocumentFormat } from './store.ts';
export { NumberBlock, type TakeNumber } from './numbering.ts';
export type { AttachedPdf, DocumentMail } from './mail.ts';

/**
 * A document's file name from its number: a number may hold `/` (a prefix such as `CN/26/`),
 * which no file name can, and which a browser or mail client would cut the name at.
 */
export function documentFilename(number: string, suffix: string): string {
  return `${number.replaceAll('/', '-')}${suffix}`;
}

/** An issued invoice or credit note, as the service reads its documents. */
export interface IssuedSubject {
  id: string;
  number: string;
  /**
   * Its document model, built from what it froze, read on `on` (called only when it must be
   * rendered: on the render's transaction).
   */
  model: ModelOn;
}

export interface IssuedDocumentsDeps {
  renderer: RenderPool;
  clock: Clock;
}

export function createIssuedDocuments({ renderer, clock }: IssuedDocumentsDeps) {
  const listeners = new Set<() => void>();
  return {
    /** The next number of the kind's series; taken last in the issuing transaction. */
    nextNumber: nextDocumentNumber,

    /**
     * Says that a unit of work just committed issued documents (their renders are queued by its
     * outcome statement): the worker of this process, if it runs one, renders them now rather
     * than at its next poll. The issue itself is answered without waiting for them.
     */
    issued(): void {
      for (const listener of listeners) listener();
    },

    /** Calls `listener` whenever documents were issued (the worker's poke). */
    onIssued(listener: () => void): void {
      listeners.add(listener);
    },

    /** A draft's PDF: a preview rendered on request, never stored. */
    preview(model: DocumentModel): Promise<Buffer> {
      return renderer.renderPdf(model);
    },

    /** The issued document's stored PDF. */
    async pdf(db: Db, scope: TenantScope, subject: IssuedSubject): Promise<AttachedPdf> {
      const stored = await issuedDocument(db, renderer, scope, subject.id, 'pdf', subject.model);
      return {
        filename: documentFilename(subject.number, '.pdf'),
        pdf: (stored as { content: Buffer }).content,
      };
    },

    /** The issued document's stored e-invoice; 409 einvoice_incomplete, with the reasons. */
    async einvoice(
      db: Db,
      scope: TenantScope,
      subject: IssuedSubject,
      format: 'ubl' | 'cii',
    ): Promise<{ filename: string; xml: Buffer }> {
      const stored = await issuedDocument(db, renderer, scope, subject.id, format, subject.model);
      if ('missing' in stored) {
        // Each field with the reason the rules give (an e-mail address is there, yet unroutable).
        throw einvoiceRefusal(stored.missing, await subject.model(db), { syntax: format });
      }
      return { filename: documentFilename(subject.number, `-${format}.xml`), xml: stored.content };
    },

    /** Which documents exist: the PDF, and the e-invoices the document's data allow. */
    formats(
      db: Db,
      scope: TenantScope,
      subject: Omit<IssuedSubject, 'number'>,
    ): Promise<Set<DocumentFormat>> {
      return issuedDocumentFormats(db, renderer, scope, subject.id, subject.model);
    },

    /** Queues the document's e-mail (./mail.ts); the document's row, its `email` queued. */
    queueMail: queueDocumentMail,

    /** The outbox kind of the document's e-mail, attaching `pdfs` as it is sent (./mail.ts). */
    mailKind<Row>(
      mail: DocumentMail<Row>,
      parts: {
        pdfs(db: Db, scope: TenantScope, id: string): Promise<AttachedPdf[]>;
        text?(db: Db, mail: MailRow): Promise<string>;
      },
    ): MailKind {
      return documentMailKind(clock, mail, parts);
    },
  };
}

export type IssuedDocuments = ReturnType<typeof createIssuedDocuments>;
