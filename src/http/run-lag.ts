// The billing run's lag on /metrics (beside the mail and webhook backlogs of ./metrics.ts): how
// long the oldest thing the run has due — a subscription's boundary, start, trial end or
// cancellation, or the issue or e-mail of an invoice it made — has waited. Read from the
// database at each scrape, so every instance shows the same figure; on test clocks against each
// clock's own time.
import type { FastifyBaseLogger } from 'fastify';
import { Gauge, type Registry } from 'prom-client';

export function registerRunLagGauge(
  registry: Registry,
  runLag: () => Promise<number>,
  log: FastifyBaseLogger,
): void {
  new Gauge({
    name: 'billing_subscription_run_lag_seconds',
    help: 'Seconds the oldest subscription boundary (or invoice issue) due and not yet done has waited; 0 when nothing is due.',
    registers: [registry],
    async collect() {
      try {
        this.set(await runLag());
      } catch (error) {
        log.warn({ err: error }, 'the billing run lag could not be read for /metrics');
        // NaN: unknown, never a reassuring 0.
        this.set(Number.NaN);
      }
    },
  });
}
