import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { SCOPES } from '../../src/keys/scopes.ts';
import { createTenantWithKey, createTestDatabase, startTestServer } from '../helpers.ts';

// The client as a user gets it: `npm pack` of clients/typescript (built with the repository's
// TypeScript), installed with `npm install ./billing-client-*.tgz` into a fresh project with
// no TypeScript of its own, imported from plain Node (ESM) for a real call to the server, and
// a small TypeScript consumer type-checked against the installed declarations.

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const work = await mkdtemp(path.join(tmpdir(), 'billing-client-install-'));
after(() => rm(work, { recursive: true, force: true }));
const env = {
  ...process.env,
  // npm and the pack step's tsc: this Node and the repository's tools, nothing of the user's.
  PATH: [path.dirname(process.execPath), path.join(root, 'node_modules/.bin'), process.env.PATH]
    .filter(Boolean)
    .join(path.delimiter),
  npm_config_cache: path.join(work, 'npm-cache'),
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
};

const url = await createTestDatabase();
const server = await startTestServer(url, { runWorker: false });
const apiKey = (await createTenantWithKey(server.db, { scopes: [...SCOPES] })).secret;

const CONSUMER_JS = `
import { BillingClient, signWebhook, verifyWebhook } from '@billing/client';
const billing = new BillingClient({ apiKey: process.env.BILLING_API_KEY, baseUrl: process.env.BILLING_URL });
const customer = await billing.customers.create({ name: 'Installed GmbH', locale: 'de-AT' });
const again = await billing.customers.get(customer.id);
const secret = 'whsec_' + Buffer.from('a secret of thirty-two bytes long').toString('base64');
const signed = await signWebhook({ type: 'customer.created', timestamp: customer.createdAt, data: { object: customer } }, secret);
const verified = await verifyWebhook(signed.body, signed.headers, secret);
console.log(JSON.stringify({ id: again.id, locale: again.locale, requestId: customer.lastResponse.requestId, type: verified.type }));
`;

// Compiles only if the installed declarations type what they should; each @ts-expect-error
// fails the compilation when the line below it is not an error.
const CONSUMER_TS = `
import {
  BillingClient,
  ListLimitExceededError,
  type components,
  type Customer,
  type ResponseMetadata,
} from '@billing/client';

type Schemas = components['schemas'];
const billing = new BillingClient({
  apiKey: 'sk_test_x',
  baseUrl: 'https://billing.example.com',
  onResponse: (event) => console.log(event.status, event.requestId, event.willRetry),
});

export async function typed(): Promise<ResponseMetadata> {
  const customer = await billing.customers.create({
    name: 'Typed',
    locale: 'de',
    electronicAddress: { scheme: '9930', value: 'DE123456789' },
  });
  await billing.customers.update(customer.id, { locale: 'fr-BE' });
  await billing.customers.update(customer.id, { electronicAddress: { scheme: 'EM', value: 'ap@x.example' } });
  // @ts-expect-error a language without a catalogue
  await billing.customers.update(customer.id, { locale: 'ja' });
  // @ts-expect-error not an electronic address scheme
  await billing.customers.update(customer.id, { electronicAddress: { scheme: 'XX', value: 'x' } });
  // @ts-expect-error not an electronic address scheme
  await billing.settings.update({ electronicAddress: { scheme: '12345', value: 'x' } });
  await billing.settings.update({ locale: 'pl' });
  // @ts-expect-error a language without a catalogue
  await billing.settings.update({ locale: 'xx' });
  const scheme: Schemas['ElectronicAddressScheme'] = '0088';
  const locale: Schemas['Locale'] = 'de-AT';
  void scheme;
  void locale;
  const all = await billing.invoices.list({ status: 'open' }).toArray({ limit: 500 });
  const plain: Customer = customer;
  void plain;
  const requestId: string | null = customer.lastResponse.requestId;
  const replayed: boolean = customer.lastResponse.idempotentReplayed;
  void requestId;
  void replayed;
  void all;
  void ListLimitExceededError;
  // @ts-expect-error the limit is a number
  await billing.invoices.list().toArray({ limit: 'all' });
  return (await billing.whoami()).lastResponse;
}
`;

describe('the client package', () => {
  it('installs from its npm pack tarball into a fresh project, runs on plain Node and type-checks', async () => {
    const packed = path.join(work, 'packed');
    await mkdir(packed);
    await run('npm', ['pack', '--pack-destination', packed], {
      cwd: path.join(root, 'clients/typescript'),
      env,
    });
    const [tarball] = await readdir(packed);
    assert.match(tarball ?? '', /^billing-client-\d+\.\d+\.\d+\.tgz$/);

    const project = path.join(work, 'project');
    await mkdir(project);
    await writeFile(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    // Offline: the package has no runtime dependencies, so nothing is fetched.
    await run('npm', ['install', '--offline', path.join(packed, tarball!)], { cwd: project, env });
    const installed = await readdir(path.join(project, 'node_modules/@billing/client/dist'));
    assert.ok(installed.includes('index.js') && installed.includes('index.d.ts'));
    assert.ok(!installed.some((file) => file.endsWith('.ts') && !file.endsWith('.d.ts')));

    await writeFile(path.join(project, 'consumer.mjs'), CONSUMER_JS);
    const { stdout } = await run(process.execPath, ['consumer.mjs'], {
      cwd: project,
      env: { ...env, BILLING_URL: server.url, BILLING_API_KEY: apiKey },
    });
    const result = JSON.parse(stdout) as Record<string, string>;
    assert.match(result.id ?? '', /^cus_/);
    assert.equal(result.locale, 'de-AT');
    assert.match(result.requestId ?? '', /^req_/);
    assert.equal(result.type, 'customer.created');

    await writeFile(path.join(project, 'consumer.ts'), CONSUMER_TS);
    await writeFile(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2022', 'DOM'],
          types: [],
          strict: true,
          noEmit: true,
          // The package's own declarations are checked too.
          skipLibCheck: false,
        },
        files: ['consumer.ts'],
      }),
    );
    const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
    const checked = await run(process.execPath, [tsc, '-p', project], { cwd: project, env }).catch(
      (error: { stdout: string }) => error,
    );
    assert.equal('code' in checked ? checked.stdout : '', '', 'tsc reports no error');
  });
});
