// Child processes of the benchmarks: the API (of this checkout or a baseline's), the bare
// route, and the load generator. The benchmark's own code runs on Node's type stripping.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Command, Reply, RoundFigures } from './generator.ts';

/**
 * Starts `command args` in `cwd` and waits for the first line of its output (stdout or
 * stderr) that matches `ready`; its output is drained from then on.
 */
export function startChild(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  cwd = process.cwd(),
): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const match = ready.exec(seen);
      if (match) {
        seen = '';
        child.stdout?.off('data', onData);
        child.stderr?.off('data', onData);
        child.stdout?.resume();
        child.stderr?.resume();
        resolve({ child, match });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code) =>
      reject(new Error(`child exited (${code}) before ready: ${seen.slice(-2000)}`)),
    );
  });
}

/** The line the API prints once it listens; the match's group 1 is its base URL. */
export const API_READY = /listening on (https?:\/\/[^"\s]+)/;

/**
 * The API's environment in a benchmark: logging on as in production, rate limits raised, its
 * local state (mail outbox, stored documents) in `dataDir`, and a secrets key of the run's own
 * (servers that seal secrets need one; older ones ignore it).
 */
/** An API's environment; instances on one database share its secrets key (`secretsKey`). */
export function apiEnv(
  databaseUrl: string,
  dataDir: string,
  secretsKey = randomBytes(32).toString('base64'),
): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    SECRETS_KEY: secretsKey,
    PORT: '0',
    LOG_LEVEL: 'info',
    RATE_LIMIT_TEST: '1000000',
    RATE_LIMIT_LIVE: '1000000',
  };
}

/** The bare route's node arguments: one route per body, named by the key (bench/bare.ts). */
export function bareNodeArgs(bodies: Record<string, string>): string[] {
  return ['bench/bare.ts', JSON.stringify(bodies)];
}
/** The line the bare route prints once it listens; the match's group 1 is its port. */
export const BARE_READY = /"port":(\d+)/;

/** The load generator (bench/generator.ts) in its own process, one command at a time. */
export class Generator {
  private readonly child: ChildProcess;
  private pending: ((reply: Reply) => void) | null = null;

  constructor() {
    this.child = fork('bench/generator.ts', [], {
      execArgv: [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (reply: Reply) => {
      const pending = this.pending;
      this.pending = null;
      pending?.(reply);
    });
    this.child.on('exit', (code) => {
      if (this.pending) throw new Error(`the load generator exited (${code})`);
    });
  }

  private ask<T extends Reply['type']>(command: Command): Promise<Extract<Reply, { type: T }>> {
    return new Promise((resolve) => {
      this.pending = resolve as (reply: Reply) => void;
      this.child.send(command);
    });
  }

  async setup(command: Extract<Command, { type: 'setup' }>): Promise<void> {
    await this.ask<'ready'>(command);
  }

  async round(command: Omit<Extract<Command, { type: 'round' }>, 'type'>): Promise<RoundFigures> {
    return (await this.ask<'round'>({ type: 'round', ...command })).figures;
  }

  async offersPayments(target: string): Promise<boolean> {
    return (await this.ask<'probe'>({ type: 'probe', target })).payments;
  }

  stop(): void {
    this.child.kill('SIGTERM');
  }
}
