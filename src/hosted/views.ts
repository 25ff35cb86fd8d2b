// The hosted page's HTML, from the Eta templates in ./templates (compiled once, escaping every
// value by default) and its one stylesheet, ./assets/page.css, served with a version of its
// content in its URL so that browsers may keep it for a year.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import { catalogueLocale, t } from '../documents/i18n.ts';
import type { DocumentLocale } from '../documents/model.ts';
import type { PageView } from './page-view.ts';

const eta = new Eta({
  views: fileURLToPath(new URL('./templates', import.meta.url)),
  cache: true,
  autoEscape: true,
});

export const STYLESHEET = readFileSync(new URL('./assets/page.css', import.meta.url));
const STYLESHEET_VERSION = createHash('sha256').update(STYLESHEET).digest('hex').slice(0, 12);

/**
 * Relative to the page (`…/i/{token}`), so that the page works under whatever path prefix
 * PUBLIC_URL has.
 */
const STYLESHEET_HREF = `assets/page.css?v=${STYLESHEET_VERSION}`;

export function invoicePage(view: PageView): string {
  return eta.render('invoice', { ...view, stylesheet: STYLESHEET_HREF });
}

/**
 * The page for an unknown, replaced or expired link (and any other path under /i/), and for
 * too many requests: one sentence, nothing about what exists. The stylesheet's URL is made
 * relative to the request's path, which may be deeper than the page's.
 */
export function messagePage(
  locale: DocumentLocale,
  message: 'hosted.linkInvalid' | 'hosted.rateLimited',
  depth: number,
): string {
  const text = t(locale, message);
  return eta.render('message', {
    lang: locale,
    title: text,
    message: text,
    stylesheet: `${'../'.repeat(depth)}${STYLESHEET_HREF}`,
  });
}

/** The first language of an Accept-Language header that has a catalogue; else English. */
export function acceptedLocale(header: string | undefined): DocumentLocale {
  const ranked = (header ?? '')
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.tag !== '' && entry.tag !== '*' && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { tag } of ranked) {
    const locale = catalogueLocale(tag);
    if (locale) return locale;
  }
  return 'en';
}
