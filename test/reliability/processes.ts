// The real server as a child process (`node src/main.ts`), for the scenarios that
// kill it or send it signals, and an HTTP client for load that never hangs.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { databaseEnv } from '../helpers.ts';
import { registerApiOrigin } from '../openapi/conformance.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const KEEP_OUTPUT = 64 * 1024;

// A run that ends early (a failed assertion, Ctrl-C) must not leave servers behind.
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

export interface ChildServer {
  url: string;
  child: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The last 64 KiB of its stdout and stderr, for failure messages. */
  output(): string;
  /**
   * The request log line of the request with this Request-Id, kept from the whole stream (the
   * 64 KiB of `output()` may have moved past it when the server logs much at once).
   */
  requestLog(requestId: string): string | undefined;
}

/**
 * Starts the server on `databaseUrl` and resolves with its URL once it logs that it listens.
 * Rate limits are out of the way of load; `env` overrides anything.
 */
export function startChildServer(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<ChildServer> {
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd: REPO,
    env: {
      ...process.env,
      ...databaseEnv(databaseUrl),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      RATE_LIMIT_TEST: '1000000',
      RATE_LIMIT_LIVE: '1000000',
      AUTH_FAILURE_LIMIT: '1000000',
      // The scenarios hold up to 18 requests waiting in the database at once.
      DATABASE_POOL_SIZE: '20',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let output = '';
  // Both pipes are drained for the whole life of the process: a full pipe would stall it.
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-KEEP_OUTPUT);
  };
  const requestLines = new Map<string, string>();
  let partial = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      const id = /"requestId":"([^"]+)"/.exec(line)?.[1];
      if (id && line.includes('"msg":"request"')) requestLines.set(id, line);
    }
  });
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const timeout = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not start within 30 s:\n${output}`));
    }, 30_000);
    const onData = () => {
      const match = /billing API listening on (https?:\/\/[^\s"]+)/.exec(output);
      if (!match) return;
      clearTimeout(timeout);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      registerApiOrigin(match[1]!);
      resolve({
        url: match[1]!,
        child,
        exited,
        output: () => output,
        requestLog: (id) => requestLines.get(id),
      });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timeout);
      reject(new Error(`the server exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
}

/** Kills the child (if still running) and waits for it to go. */
export async function killChild(server: ChildServer, signal: NodeJS.Signals = 'SIGKILL') {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill(signal);
  return server.exited;
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: any;
  ms: number;
}

/**
 * One HTTP request that settles within `timeoutMs`: a reply, or a thrown error (refused
 * connection, reset, timeout). `raw` sends the body text as is.
 */
export async function request(
  baseUrl: string,
  method: string,
  path: string,
  options: {
    key?: string;
    body?: unknown;
    raw?: string | Buffer;
    headers?: Record<string, string>;
    timeoutMs?: number;
  } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  const raw = options.raw;
  let body = typeof raw === 'string' || raw === undefined ? raw : new Uint8Array(raw);
  if (body === undefined && options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const started = performance.now();
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    body,
    signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: parsed,
    ms: performance.now() - started,
  };
}

export { sleep } from '../helpers.ts';

/** The promise's value, or null when it takes longer than `ms` (the timer does not linger). */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
