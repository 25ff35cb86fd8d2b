// CPU time and memory of processes, read from /proc: the API's, the bare route's and
// PostgreSQL's. CPU time per request, unlike requests per second, does not depend on what
// else this shared machine is running at the moment, as long as the process is not starved.
import { execFileSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

interface Stat {
  ppid: number;
  /** user + system, seconds */
  own: number;
  /** user + system of the children it has waited for, seconds */
  reaped: number;
}

async function stat(pid: number): Promise<Stat | null> {
  try {
    const text = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start with the state (field 3).
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const n = (field: number) => Number(f[field - 3]);
    return {
      ppid: n(4),
      own: (n(14) + n(15)) / TICKS_PER_SECOND,
      reaped: (n(16) + n(17)) / TICKS_PER_SECOND,
    };
  } catch {
    return null;
  }
}

/** CPU seconds (user + system, every thread) a process has used so far. */
export async function processCpu(pid: number): Promise<number> {
  return (await stat(pid))?.own ?? 0;
}

/** Peak resident memory of a process so far (VmHWM), in MB. */
export async function peakRssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  return Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

// A client backend's title: "postgres: [cluster: ]user database host(port) state" (or [local]).
const BACKEND = /^postgres: (?:[^:]+: )?\S+ (\S+) (?:\S+\(\d+\)|\[local\])/;

/**
 * PostgreSQL's CPU seconds so far: the postmaster and its children. On a server of its own
 * (`whole`), every child counts, and so do the children that have ended since (the postmaster
 * has waited for them: its reaped time). On a shared server, only the backends of `databases`
 * and the server's own processes (checkpointer, WAL writer, autovacuum…) count, and those that
 * ended are lost: the figure is then approximate.
 */
export async function postgresCpu(
  postmaster: number,
  databases: ReadonlySet<string>,
  whole: boolean,
): Promise<number> {
  const root = await stat(postmaster);
  if (!root) return 0;
  let total = root.own + (whole ? root.reaped : 0);
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(Number);
  for (const pid of pids) {
    const s = await stat(pid);
    if (!s || s.ppid !== postmaster) continue;
    if (!whole) {
      const title = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).replaceAll(
        '\0',
        ' ',
      );
      const backend = BACKEND.exec(title);
      if (backend && !databases.has(backend[1]!)) continue;
    }
    total += s.own;
  }
  return total;
}

/**
 * CPU seconds the API's render threads have spent rendering documents so far, from its
 * `/metrics` (`billing_render_cpu_seconds_total`); null when it does not report them (a
 * baseline older than the counter, the bare route). Part of `processCpu`, not in addition.
 */
export async function renderCpu(target: string): Promise<number | null> {
  try {
    // A server started with METRICS_TOKEN asks for it (src/http/metrics.ts).
    const token = process.env.METRICS_TOKEN;
    const res = await fetch(new URL('/metrics', target), {
      signal: AbortSignal.timeout(5000),
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    if (!res.ok) return null;
    const line = /^billing_render_cpu_seconds_total (\S+)$/m.exec(await res.text());
    return line ? Number(line[1]) : null;
  } catch {
    return null;
  }
}
