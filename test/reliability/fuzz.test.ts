import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeFigures, explainFailures } from './figures.ts';
import { runFuzzScenario } from './fuzz.ts';

const adminUrl = process.env.TEST_DATABASE_URL!;

describe('fuzzing every route from its schema', () => {
  it('answers every bad input with a documented error envelope and changes nothing when it refuses', async (t) => {
    const figures = await runFuzzScenario(adminUrl, {
      valuesPerSlot: 2,
      randomPerSlot: 0,
      seed: 1,
    });
    t.diagnostic(describeFigures(figures));
    assert.equal(figures.failures, 0, explainFailures(figures));
    assert.ok(Number(figures.notes.operations) >= 20, 'the document lists the routes');
  });
});
