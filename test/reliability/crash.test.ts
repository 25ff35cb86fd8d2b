import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runCrashScenario } from './crash.ts';
import { describeFigures, explainFailures } from './figures.ts';

const adminUrl = process.env.TEST_DATABASE_URL!;

describe('crashes under write load', () => {
  it('keeps exactly one invoice or payment per Idempotency-Key, each equal to the accepted reply and with its event, across SIGKILLs', async (t) => {
    const figures = await runCrashScenario(adminUrl, {
      clients: 4,
      payers: 2,
      kills: 3,
      runMs: [300, 700],
    });
    t.diagnostic(describeFigures(figures));
    assert.equal(figures.failures, 0, explainFailures(figures));
    assert.equal(figures.notes.kills, 3);
    assert.ok(Number(figures.notes.inFlightAtKills) > 0, 'requests were in flight when killed');
    assert.ok(figures.cases > 20, 'enough creations ran');
    assert.ok(Number(figures.notes.payments) > 0, 'payments were recorded');
  });
});
