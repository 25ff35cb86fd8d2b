import assert from 'node:assert/strict';
import pg from 'pg';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { call, createTestDatabase, databaseEnv, waitUntil } from '../helpers.ts';
import { freePort } from '../reliability/databases.ts';
import { billing } from './billing.ts';

describe('billing CLI', () => {
  it('creates tenants and keys, lists without secrets, rotates and revokes, with --json', async () => {
    const env = databaseEnv(await createTestDatabase());
    const tenant = JSON.parse(await billing(env, 'tenants', 'create', '--name', 'Acme', '--json'));
    assert.match(tenant.id, /^ten_/);
    assert.equal(tenant.name, 'Acme');
    const listed = JSON.parse(await billing(env, 'tenants', 'list', '--json'));
    assert.deepEqual(
      listed.map((t: { id: string }) => t.id),
      [tenant.id],
    );

    const key = JSON.parse(
      await billing(
        env,
        'keys',
        'create',
        '--tenant',
        tenant.id,
        '--environment',
        'test',
        '--scope',
        'customers:read',
        '--scope',
        'invoices:read',
        '--json',
      ),
    );
    assert.match(key.id, /^key_/);
    assert.match(key.secret, /^sk_test_/);
    assert.equal(key.tenantId, tenant.id);
    assert.equal(key.environment, 'test');
    assert.deepEqual(key.scopes, ['customers:read', 'invoices:read']);

    const keys = await billing(env, 'keys', 'list', '--tenant', tenant.id, '--json');
    assert.doesNotMatch(keys, /sk_test_[0-9A-Za-z]{8}/);
    assert.equal(JSON.parse(keys)[0].id, key.id);

    const rotated = JSON.parse(
      await billing(env, 'keys', 'rotate', key.id, '--expire-old-in', '1h', '--json'),
    );
    assert.deepEqual(rotated.scopes, key.scopes);
    assert.equal(rotated.rotatedFrom, key.id);
    assert.notEqual(rotated.secret, key.secret);
    const afterRotate = JSON.parse(
      await billing(env, 'keys', 'list', '--tenant', tenant.id, '--json'),
    );
    const old = afterRotate.find((k: { id: string }) => k.id === key.id);
    const inAnHour = Date.now() + 3600_000;
    assert.ok(Math.abs(new Date(old.expiresAt).getTime() - inAnHour) < 60_000);

    const revoked = JSON.parse(await billing(env, 'keys', 'revoke', key.id, '--json'));
    assert.ok(revoked.revokedAt);
  });

  it('sets einvoiceRequired with --einvoice-required yes|no', async () => {
    const env = databaseEnv(await createTestDatabase());
    const tenant = JSON.parse(await billing(env, 'tenants', 'create', '--name', 'Acme', '--json'));
    const update = (value: string) =>
      billing(env, 'tenants', 'update', tenant.id, '--einvoice-required', value, '--json');
    const on = JSON.parse(await update('yes'));
    assert.deepEqual(
      on.settings.map((s: any) => [s.environment, s.einvoiceRequired]),
      [
        ['live', true],
        ['test', true],
      ],
    );
    const off = JSON.parse(await update('no'));
    assert.deepEqual(
      off.settings.map((s: any) => s.einvoiceRequired),
      [false, false],
    );
    await assert.rejects(update('maybe'), /--einvoice-required must be yes or no/);
  });

  it('refuses bad arguments with a message and a non-zero exit', async () => {
    const env = databaseEnv(await createTestDatabase());
    await assert.rejects(
      billing(
        env,
        'keys',
        'create',
        '--tenant',
        'ten_x',
        '--environment',
        'prod',
        '--scope',
        'customers:read',
      ),
      /--environment must be test or live/,
    );
    await assert.rejects(
      billing(
        env,
        'keys',
        'create',
        '--tenant',
        'ten_missing',
        '--environment',
        'test',
        '--scope',
        'customers:read',
      ),
      /resource_missing/,
    );
    await assert.rejects(billing(env, 'keys', 'revoke', 'key_missing'), /resource_missing/);
    await assert.rejects(
      billing(env, 'keys', 'rotate', 'key_x', '--expire-old-in', 'soon'),
      /not a duration/,
    );
  });

  it('works while the server runs on the embedded database', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'billing-cli-'));
    const pgPort = String(await freePort());
    const env = { DATA_DIR: dataDir, EMBEDDED_PG_PORT: pgPort, DATABASE_URL: '' };
    const server = spawn(process.execPath, ['src/main.ts'], {
      env: { ...process.env, ...env, PORT: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let logStream = '';
    server.stdout.on('data', (c) => {
      output += c;
      logStream += c;
    });
    server.stderr.on('data', (c) => (output += c));
    const exited = new Promise<number | null>((resolve) => server.on('exit', resolve));
    after(async () => {
      server.kill('SIGTERM');
      const code = await exited;
      // A clean stop, and the embedded database stopped with the server.
      assert.equal(code, 0, output);
      const probe = new pg.Client({ host: '127.0.0.1', port: Number(pgPort), user: 'postgres' });
      await assert.rejects(probe.connect(), /ECONNREFUSED/, 'the embedded database still runs');
      await rm(dataDir, { recursive: true, force: true });
    });
    // The listening line goes to stdout (JSON logs) and the key to stderr (the terminal): two
    // pipes, either may come first.
    const started = () => /listening on (http:\/\/\S+)/.test(output) && /sk_test_/.test(output);
    // The embedded PostgreSQL's first start may take a while on a busy machine.
    await waitUntil(started, 60_000, 100);
    const url = /listening on (http:\/\/[^"\s]+)/.exec(output)?.[1];
    assert.ok(url, output);
    const firstKey = /(sk_test_[0-9A-Za-z]+)/.exec(output)?.[1];
    assert.ok(firstKey, 'the first start prints a test key');
    assert.ok(!logStream.includes(firstKey), 'the first-start key is not in the JSON log stream');
    for (const line of logStream.trim().split('\n')) JSON.parse(line);
    const who = await call(url, 'GET', '/v1/auth/whoami', { key: firstKey });
    assert.equal(who.status, 200);

    const key = JSON.parse(
      await billing(
        env,
        'keys',
        'create',
        '--tenant',
        who.body.tenantId,
        '--environment',
        'test',
        '--scope',
        'customers:read',
        '--json',
      ),
    );
    assert.equal((await call(url, 'GET', '/v1/auth/whoami', { key: key.secret })).status, 200);
    await billing(env, 'keys', 'revoke', key.id);
    // The server refuses it within 2 s (docs/api.md: a revoked key is refused within 2 seconds).
    const refused = async () =>
      (await call(url, 'GET', '/v1/auth/whoami', { key: key.secret })).status === 401;
    assert.ok(await waitUntil(refused, 2000), 'the running server refuses the revoked key');
    // The server still has its database after the CLI is done.
    assert.equal((await call(url, 'GET', '/readyz')).status, 200);
  });
});

describe('configuration', () => {
  it('names every wrong variable at start', () => {
    assert.throws(
      () =>
        loadConfig({
          PORT: 'eighty',
          DATABASE_URL: 'mysql://x',
          RATE_LIMIT_TEST: '0',
          LOG_LEVEL: 'loud',
          WEBHOOKS_ALLOW_LOOPBACK: 'yes',
        }),
      (error: Error) => {
        for (const name of [
          'PORT',
          'DATABASE_URL',
          'RATE_LIMIT_TEST',
          'LOG_LEVEL',
          'WEBHOOKS_ALLOW_LOOPBACK',
        ]) {
          assert.match(error.message, new RegExp(name));
        }
        return true;
      },
    );
    const config = loadConfig({});
    assert.equal(config.port, 3000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.rateLimitLive, 100);
    assert.equal(config.rateLimitTest, 25);
  });
});
