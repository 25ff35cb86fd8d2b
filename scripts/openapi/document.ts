// The OpenAPI document as the server serves it, built from buildApp without a database, a port
// or worker threads: nothing the document depends on needs them. Used by `npm run
// lint:openapi`, the client's type generation and the tests' response validation.
import { buildApp } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { RenderPool } from '../../src/documents/render-pool.ts';
import { HostedLinks } from '../../src/hosted/links.ts';
import { KeyVerifier } from '../../src/keys/verifier.ts';
import { createPool } from '../../src/db/pool.ts';
import { CursorSigner } from '../../src/paging.ts';
import { SecretsKeyring } from '../../src/secrets/keyring.ts';

// Never asked to render: building the document runs no route.
const noRenderer: RenderPool = {
  threads: 0,
  cpuSeconds: 0,
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
  const app = await buildApp({
    config,
    db,
    cursors: new CursorSigner(secrets.derive('cursor signing')),
    secrets,
    renderer: noRenderer,
    verifier: new KeyVerifier(db, 0),
    links: new HostedLinks(secrets, () => 'http://127.0.0.1'),
  });
  try {
    await app.ready();
    return app.swagger();
  } finally {
    await app.close();
    await db.end();
  }
}
