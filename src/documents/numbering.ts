// Numbers of issued documents: sequential and gapless per tenant, environment and series
// (INV-000001, …; CN-000001, …), the prefix a tenant setting. Invoices and credit notes have a
// series each: a credit note is a legal document like an invoice, and many countries require
// both series to be gapless. The counter is a row locked by the issuing transaction (see the
// migrations), so concurrent issues queue for it and a rolled-back issue leaves no gap.
import type { Tx } from '../db/pool.ts';
import type { TenantScope } from '../tenancy.ts';
import { takeNextNumbers, type NumberSeries } from './store.ts';

export type { NumberSeries } from './store.ts';

export function formatDocumentNumber(prefix: string, sequence: number): string {
  return `${prefix}${String(sequence).padStart(6, '0')}`;
}

/**
 * Takes the next number of the series. Call it last in the issuing transaction: the counter
 * stays locked until that transaction ends, and every other issue in the series waits for it.
 */
export async function nextDocumentNumber(
  tx: Tx,
  scope: TenantScope,
  series: NumberSeries,
  prefix: string,
): Promise<string> {
  return formatDocumentNumber(prefix, await takeNextNumbers(tx, scope, series));
}

/** How an issue takes its number (nextDocumentNumber, or a share of a NumberBlock). */
export type TakeNumber = (tx: Tx, scope: TenantScope, prefix: string) => Promise<string>;

/**
 * The numbers of `count` issues of one transaction (a batch of the billing run), taken as one
 * block when the last of them asks for its number: the counter is then locked only for the
 * rest of the batch, not from its first issue, so another batch of the tenant prepares its
 * issues meanwhile. Each issue gets the next number of the block in the order they asked.
 * Should one of them fail before it asks (`fail`), every one waiting fails too: the
 * transaction rolls back, and no number is taken.
 */
export class NumberBlock {
  readonly #series: NumberSeries;
  readonly #count: number;
  readonly #waiting: { resolve(n: string): void; reject(e: unknown): void }[] = [];
  #failed: unknown = undefined;
  #asked = 0;

  constructor(series: NumberSeries, count: number) {
    this.#series = series;
    this.#count = count;
  }

  readonly take: TakeNumber = (tx, scope, prefix) => {
    if (this.#failed !== undefined) return Promise.reject(this.#failed);
    const taken = new Promise<string>((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
    });
    if (++this.#asked === this.#count) {
      takeNextNumbers(tx, scope, this.#series, this.#count).then(
        (last) =>
          this.#waiting.forEach((w, i) =>
            w.resolve(formatDocumentNumber(prefix, last - this.#count + 1 + i)),
          ),
        (error: unknown) => this.fail(error),
      );
    }
    return taken;
  };

  fail(error: unknown): void {
    this.#failed ??= error;
    for (const w of this.#waiting.splice(0)) w.reject(this.#failed);
  }
}
