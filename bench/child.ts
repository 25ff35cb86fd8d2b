// Child processes of the benchmarks: the API, the bare route and the load generator.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';

/**
 * Starts `command args` and waits for the first line of its output (stdout or stderr) that
 * matches `ready`; its output is drained from then on.
 */
export function startChild(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
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

/** The API's node arguments, as `npm start` runs it (package.json). */
export const API_NODE_ARGS = ['src/main.ts'];
/** The line the API prints once it listens; the match's group 1 is its base URL. */
export const API_READY = /listening on (http:\/\/[^"\s]+)/;

/** The API's environment in a benchmark: logging on as in production, rate limits raised. */
export function apiEnv(databaseUrl: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: databaseUrl,
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

const run = promisify(execFile);

/**
 * One run of the load generator (bench/load.ts) in its own process, with `spec` as its
 * LoadSpec; its one JSON line of figures.
 */
export async function runLoad<T>(spec: Record<string, unknown>): Promise<T> {
  const { stdout } = await run(process.execPath, ['bench/load.ts', JSON.stringify(spec)], {
    maxBuffer: 1 << 24,
  });
  return JSON.parse(stdout.trim().split('\n').pop()!) as T;
}
