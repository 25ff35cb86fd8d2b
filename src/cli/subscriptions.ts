// billing subscriptions run | show
import type { Command } from 'commander';
import { withServices } from './database.ts';
import { print } from './output.ts';
import { parseEnvironments } from './settings-options.ts';

/** `--at`: an instant not later than now. A later one would bill periods ahead of their time. */
function parseAt(text: string | undefined, now: Date): Date {
  if (text === undefined) return now;
  const at = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || Number.isNaN(at.getTime())) {
    throw new Error(`--at must be an ISO 8601 instant, e.g. 2027-01-31T10:00:00Z, not ${text}`);
  }
  if (at > now) throw new Error('--at must not be later than now: the run bills what is due');
  return at;
}

export function registerSubscriptionCommands(program: Command): void {
  const subscriptions = program.command('subscriptions').description('subscriptions');
  subscriptions
    .command('run')
    .description(
      "run the billing run once, as the worker does every few seconds: every subscription's due boundaries, trial ends, cancellations and pauses ending, and the issue of invoices whose grace period is over (e.g. after an outage); test clocks are not touched",
    )
    .option('--at <instant>', 'bill what is due up to this instant (default: now)')
    .option('--json', 'print JSON')
    .action(async (o: { at?: string; json?: boolean }) => {
      const done = await withServices(async (services) => {
        const at = parseAt(o.at, services.clock.now());
        const steps = await services.subscriptions.runDue(null, at);
        return { at: at.toISOString(), steps };
      });
      print(done, o.json === true);
    });
  subscriptions
    .command('show <subscriptionId>')
    .description('print a subscription as JSON, as the API shows it')
    .requiredOption('--tenant <tenantId>')
    .option('--environment <environment>', 'live or test (default live)')
    .action(async (id: string, o: { tenant: string; environment?: string }) => {
      const [environment] = parseEnvironments(o.environment ?? 'live');
      const subscription = await withServices((services) =>
        services.subscriptions.get({ tenantId: o.tenant, environment: environment! }, id),
      );
      print(subscription, true);
    });
}
