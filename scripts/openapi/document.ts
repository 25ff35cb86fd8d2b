// The OpenAPI document as the server serves it, built from buildApp without a database, a port
// or worker threads: nothing the document depends on needs them. Used by `npm run
// lint:openapi`, the client's type generation and the tests' response validation.
import { buildApp } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { systemClock } from '../../src/clock.ts';
import { composeHttp, createHostedLinks } from '../../src/composition.ts';
import type { RenderPool } from '../../src/documents/render-pool.ts';
import { createPool } from '../../src/db/pool.ts';
import { SecretsKeyring } from '../../src/secrets/keyring.ts';

// Never asked to render: building the document runs no route.
const noRenderer: RenderPool = {
  threads: 0,
  cpuSeconds: 0,
  rendered: 0,
  renderPdf: () => Promise.reject(new Error('not rendering')),
  renderIssued: () => Promise.reject(new Error('not rendering')),
  close: () => Promise.resolve(),
};

/** The document of an app configured as `overrides` say (the environment's defaults else). */
export async function buildOpenApiDocument(overrides: Partial<Config> = {}): Promise<unknown> {
  const config: Config = {
    ...loadConfig({}),
    logLevel: 'silent',
    secretsKey: Buffer.alloc(32, 1).toString('base64'),
    ...overrides,
  };
  // A pool connects on its first query only, and none is made.
  const db = createPool('postgres://nobody@127.0.0.1:1/none', 1);
  const secrets = await SecretsKeyring.load(config);
  const links = createHostedLinks(config, secrets, systemClock, () => 'http://127.0.0.1');
  const foundation = { config, clock: systemClock, db, secrets, renderer: noRenderer, links };
  const app = await buildApp(await composeHttp(foundation));
  try {
    await app.ready();
    return app.swagger();
  } finally {
    await app.close();
    await db.end();
  }
}
