// A list of the API: awaiting it gives its first page; iterating it (`for await`) walks every
// page through `nextCursor`, item by item, fetching each page only when it is reached.
import type { Page } from './types.ts';

export class List<T> implements AsyncIterable<T>, PromiseLike<Page<T>> {
  readonly #fetchPage: (cursor: string | undefined) => Promise<Page<T>>;
  #first: Promise<Page<T>> | undefined;

  constructor(fetchPage: (cursor: string | undefined) => Promise<Page<T>>) {
    this.#fetchPage = fetchPage;
  }

  /** The first page (fetched once, however often it is awaited). */
  firstPage(): Promise<Page<T>> {
    this.#first ??= this.#fetchPage(undefined);
    return this.#first;
  }

  then<A = Page<T>, B = never>(
    onFulfilled?: ((page: Page<T>) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.firstPage().then(onFulfilled, onRejected);
  }

  /** Every page in turn, the first included. */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let page = await this.firstPage();
    yield page;
    while (page.nextCursor !== null) {
      page = await this.#fetchPage(page.nextCursor);
      yield page;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Every item of every page, in an array (for lists known to be short). */
  async toArray(): Promise<T[]> {
    const items: T[] = [];
    for await (const item of this) items.push(item);
    return items;
  }
}
