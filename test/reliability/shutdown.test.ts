import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createServer } from 'node:net';
import { createScratchDatabase, freePort } from './databases.ts';
import { describeFigures, explainFailures } from './figures.ts';
import { startChildServer } from './processes.ts';
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

  it('exits 1 with the reason when its port is taken, rather than hanging', async (t) => {
    const database = await createScratchDatabase(adminUrl);
    t.after(() => database.drop());
    const port = await freePort();
    const squatter = createServer().listen(port, '127.0.0.1');
    t.after(() => squatter.close());
    await new Promise((resolve) => squatter.once('listening', resolve));
    await assert.rejects(
      startChildServer(database.url, { PORT: String(port) }),
      /exited \(1\) before listening:[\s\S]*EADDRINUSE/,
    );
  });
});
