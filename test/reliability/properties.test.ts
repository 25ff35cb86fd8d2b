import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeFigures, explainFailures } from './figures.ts';
import { runPropertyScenario } from './properties.ts';

const adminUrl = process.env.TEST_DATABASE_URL!;

describe('random operations by several tenants in both environments (model-based)', () => {
  it('never shows a key another tenant’s or environment’s object, keeps the money invariants after every step, and never answers 5xx', async (t) => {
    const figures = await runPropertyScenario(adminUrl, { runs: 12, maxCommands: 25 });
    t.diagnostic(describeFigures(figures));
    assert.equal(figures.failures, 0, explainFailures(figures));
  });
});
