// The console's navigation, in its order. A page joins it with one entry here (its path, its
// label's catalogue key, what its reader needs); a user sees the links its role permits.
import type { MessageId } from '../documents/i18n.ts';
import type { Permission } from './roles.ts';

export interface NavEntry {
  href: string;
  label: MessageId;
  needs: Permission;
}

export const NAVIGATION: readonly NavEntry[] = [
  { href: '/console', label: 'console.nav.overview', needs: 'invoices:read' },
  { href: '/console/customers', label: 'console.nav.customers', needs: 'customers:read' },
  { href: '/console/invoices', label: 'console.invoices.nav', needs: 'invoices:read' },
  {
    href: '/console/subscriptions',
    label: 'console.subscriptions.nav',
    needs: 'subscriptions:read',
  },
  { href: '/console/reports', label: 'console.reports.title', needs: 'invoices:read' },
  { href: '/console/webhooks', label: 'console.webhooks.nav', needs: 'webhooks:read' },
  { href: '/console/events', label: 'console.events.nav', needs: 'invoices:read' },
  { href: '/console/settings', label: 'console.settings.title', needs: 'settings:read' },
  { href: '/console/settings/users', label: 'console.nav.users', needs: 'users:manage' },
];

/** The entry a path belongs to: the longest href that is the path or a folder above it. */
export function currentEntry(path: string): NavEntry | undefined {
  return NAVIGATION.filter((e) => path === e.href || path.startsWith(`${e.href}/`)).sort(
    (a, b) => b.href.length - a.href.length,
  )[0];
}
