// pgbench's TPC-B-like transaction (three updates, a select and an insert) on the same server
// at the same concurrency: what this PostgreSQL, on this machine, does with short write
// transactions. Creating an invoice is a write transaction of a similar size.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

function connection(url: string) {
  const u = new URL(url);
  return {
    env: { ...process.env, PGPASSWORD: decodeURIComponent(u.password) },
    args: [
      '-h',
      u.hostname,
      '-p',
      u.port || '5432',
      '-U',
      decodeURIComponent(u.username) || 'postgres',
    ],
    database: u.pathname.slice(1),
  };
}

export async function hasPgbench(): Promise<boolean> {
  try {
    await run('pgbench', ['--version']);
    return true;
  } catch {
    return false;
  }
}

/** pgbench's own tables at scale 10 (1,000,000 accounts), made once before measuring. */
export async function initPgbench(url: string): Promise<void> {
  const c = connection(url);
  await run('pgbench', [...c.args, '-i', '-q', '-s', '10', c.database], { env: c.env });
}

export interface PgbenchRound {
  tps: number;
  transactions: number;
  seconds: number;
  latencyMs: number;
  failed: number;
}

export async function pgbench(
  url: string,
  connections: number,
  seconds: number,
): Promise<PgbenchRound> {
  const c = connection(url);
  const { stdout } = await run(
    'pgbench',
    [
      ...c.args,
      '-c',
      String(connections),
      '-j',
      '2',
      '-T',
      String(seconds),
      '-M',
      'prepared',
      c.database,
    ],
    { env: c.env },
  );
  const number = (pattern: RegExp) => Number(pattern.exec(stdout)?.[1] ?? 0);
  return {
    tps: number(/tps = ([\d.]+)/),
    transactions: number(/number of transactions actually processed: (\d+)/),
    seconds,
    latencyMs: number(/latency average = ([\d.]+) ms/),
    failed: number(/number of failed transactions: (\d+)/),
  };
}
