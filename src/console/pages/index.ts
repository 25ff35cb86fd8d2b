// The console's pages, each a file of this folder registering its routes under /console. A
// new page is one more entry here (and, to be linked, one in ../navigation.ts).
import type { FastifyInstance } from 'fastify';
import type { Composition } from '../../composition.ts';
import { apiKeyPages } from './api-keys.ts';
import { customerPages } from './customers.ts';
import { eventPages } from './events.ts';
import { invoiceActionPages } from './invoice-actions.ts';
import { invoicePages } from './invoices.ts';
import { invitationPages } from './invitation.ts';
import { overviewPages } from './overview.ts';
import { reportPages } from './reports.ts';
import { settingsPages } from './settings.ts';
import { signInPages } from './sign-in.ts';
import { subscriptionPages } from './subscriptions.ts';
import { userPages } from './users.ts';
import { webhookPages } from './webhooks.ts';

export type ConsolePages = (app: FastifyInstance, deps: Composition) => Promise<void>;

export const CONSOLE_PAGES: readonly ConsolePages[] = [
  signInPages,
  invitationPages,
  overviewPages,
  customerPages,
  invoicePages,
  invoiceActionPages,
  eventPages,
  subscriptionPages,
  webhookPages,
  userPages,
  reportPages,
  settingsPages,
  apiKeyPages,
];
