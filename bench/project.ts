// The little the benchmark takes from a checkout's own code (this one, or a baseline's
// worktree): how it starts its API (its `npm start`), its migrations, and its tenants and API
// keys, made by its own service functions (bench/tenants.ts). Secrets are stored hashed, so a
// key is usable only if the benchmark made it and kept the secret it was shown once.
// Everything else goes over HTTP or plain SQL.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TenantKeys {
  tenantId: string;
  /** Two secrets of test keys holding every scope. */
  secrets: [string, string];
}

/**
 * How the checkout at `root` runs its code, read from its `npm start` (`node [flags] entry`):
 * the flags (a loader, heap bounds) and the entry, to be run with this benchmark's Node.
 */
export async function startCommand(root: string): Promise<{ flags: string[]; entry: string }> {
  const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
    scripts?: { start?: string };
  };
  const words = (manifest.scripts?.start ?? '').trim().split(/\s+/);
  if (words[0] !== 'node' || words.length < 2) {
    throw new Error(`${root}: npm start is not "node [flags] entry": ${manifest.scripts?.start}`);
  }
  return { flags: words.slice(1, -1), entry: words.at(-1)! };
}

/** Migrates the empty database `url` and makes `count` tenants with two keys each. */
export async function makeTenants(root: string, url: string, count: number): Promise<TenantKeys[]> {
  const { flags } = await startCommand(root);
  const script = join(import.meta.dirname, 'tenants.ts');
  const { stdout } = await run(process.execPath, [...flags, script, url, String(count)], {
    cwd: root,
    maxBuffer: 1 << 26,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as TenantKeys[];
}
