// The console's HTML: Eta templates in ./templates (compiled once, every value escaped unless
// a template says otherwise), each page inside ./templates/layout.eta, and one stylesheet,
// ./assets/console.css, whose URL carries a version of its content (cached for a year).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import { t, type MessageId, type MessageValues } from '../documents/i18n.ts';
import type { DocumentLocale } from '../documents/model.ts';

const TEMPLATES = fileURLToPath(new URL('./templates', import.meta.url));
const eta = new Eta({ views: TEMPLATES, cache: true, autoEscape: true });

export const STYLESHEET = readFileSync(new URL('./assets/console.css', import.meta.url));
export const STYLESHEET_HREF = `/console/assets/console.css?v=${createHash('sha256')
  .update(STYLESHEET)
  .digest('hex')
  .slice(0, 12)}`;

/** A link of the navigation, as the layout shows it. */
export interface NavLink {
  href: string;
  label: string;
  current: boolean;
}

/** What the layout needs besides the page's own view. */
export interface Frame {
  lang: DocumentLocale;
  title: string;
  /** The signed-in part (header, navigation, switch); null on sign-in and invitation pages. */
  signedIn: {
    tenantName: string;
    email: string;
    environment: 'live' | 'test';
    nav: NavLink[];
    path: string;
  } | null;
  /** The CSRF token every form of the page carries (field `_csrf`). */
  csrf: string;
}

/** A text of the catalogue in the page's language (`it.t('console.nav.overview')`). */
export type Translate = (id: MessageId, values?: MessageValues) => string;

/** A page: the template `name` with the page's view, inside the layout. */
export function renderPage(name: string, frame: Frame, view: object): string {
  const translate: Translate = (id, values) => t(frame.lang, id, values);
  return eta.render(name, {
    ...view,
    ...frame,
    t: translate,
    stylesheet: STYLESHEET_HREF,
    // A fresh key per form rendered: submitting it twice (a double click, a reload) is one write.
    newKey: () => crypto.randomUUID(),
  });
}
