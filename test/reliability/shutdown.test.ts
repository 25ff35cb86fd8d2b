import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeFigures, explainFailures } from './figures.ts';
import { runShutdownScenario } from './shutdown.ts';

const adminUrl = process.env.TEST_DATABASE_URL!;

describe('graceful shutdown', () => {
  it('completes every request in flight at SIGTERM, refuses new ones, and exits 0', async (t) => {
    const figures = await runShutdownScenario(adminUrl, {
      rounds: 1,
      blocked: 12,
      pdfs: 4,
      holdMs: 1000,
    });
    t.diagnostic(describeFigures(figures));
    assert.equal(figures.failures, 0, explainFailures(figures));
    assert.equal(figures.notes.inFlightAtSigterm, 16, 'every request was in flight at SIGTERM');
  });
});
