import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeFigures, explainFailures } from './figures.ts';
import { runOutageScenario } from './outage.ts';

describe('a database outage', () => {
  it('answers 503 service_unavailable with Retry-After on every path, never a 500 or a hang, and resumes without a restart', async (t) => {
    const figures = await runOutageScenario({ outages: 1, downMs: 2500, clients: 3 });
    t.diagnostic(describeFigures(figures));
    assert.equal(figures.failures, 0, explainFailures(figures));
    assert.ok(Number(figures.notes.answered503) >= 5, 'the outage was met by requests');
  });
});
