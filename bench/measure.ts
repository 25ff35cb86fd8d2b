// Rounds of load and the CPU the servers spent on them. Sides that are compared run in turn,
// round by round (a, b, a, b, …) after a warm-up of each: a drift of this shared machine's
// speed during the run then falls on every side alike.
import type { Generator } from './child.ts';
import { postgresCpu, processCpu, renderCpu } from './cpu.ts';
import type { Round } from './figures.ts';
import { pgbench, type PgbenchRound } from './pgbench.ts';
import type { Scenario } from './traffic.ts';

export type Side<T> = (seconds: number) => Promise<T>;

export async function inTurn<T>(
  sides: Side<T>[],
  rounds: number,
  seconds: number,
  warmUp: number,
): Promise<T[][]> {
  for (const side of sides) await side(warmUp);
  const results = sides.map((): T[] => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, side] of sides.entries()) results[i]!.push(await side(seconds));
  }
  return results;
}

/** A server process under load, with the origin of its metrics (null: it has none). */
export interface Server {
  pid: number;
  origin: string | null;
}

export type PgbenchMeasured = PgbenchRound & { postgresCpu: number | null };

export class Meter {
  private readonly generator: Generator;
  private readonly connections: number;
  /** The postmaster's pid, or null when PostgreSQL is not on this machine. */
  private readonly postmaster: number | null;
  /** Whether the server is the benchmark's own (every process of it counts). */
  private readonly wholeServer: boolean;

  constructor(
    generator: Generator,
    connections: number,
    postmaster: number | null,
    wholeServer: boolean,
  ) {
    this.generator = generator;
    this.connections = connections;
    this.postmaster = postmaster;
    this.wholeServer = wholeServer;
  }

  private postgres(databases: ReadonlySet<string>): Promise<number | null> {
    return this.postmaster === null
      ? Promise.resolve(null)
      : postgresCpu(this.postmaster, databases, this.wholeServer);
  }

  /**
   * A round of `scenario` against the generator's `target`, served by the processes `servers`
   * (each with its metrics' origin, null for none; the connections spread over as many of the
   * target's instances); at `rate` requests per second, or as fast as the servers answer.
   */
  load(
    target: string,
    servers: Server[],
    database: string,
    scenario: Scenario,
    rate?: number,
  ): Side<Round> {
    const databases = new Set([database]);
    const render = async () => {
      let total = 0;
      for (const { origin } of servers) {
        const cpu = origin === null ? null : await renderCpu(origin);
        if (cpu === null) return null;
        total += cpu;
      }
      return total;
    };
    const cpu = async () => {
      let total = 0;
      for (const { pid } of servers) total += await processCpu(pid);
      return total;
    };
    return async (seconds) => {
      const [cpu0, pg0, r0] = [await cpu(), await this.postgres(databases), await render()];
      const figures = await this.generator.round({
        target,
        scenario,
        seconds,
        connections: this.connections,
        instances: servers.length,
        ...(rate === undefined ? {} : { rate }),
      });
      const [cpu1, pg1, r1] = [await cpu(), await this.postgres(databases), await render()];
      return {
        figures,
        serverCpu: cpu1 - cpu0,
        renderCpu: r0 === null || r1 === null ? null : r1 - r0,
        postgresCpu: pg0 === null || pg1 === null ? null : pg1 - pg0,
      };
    };
  }

  /** A round of pgbench on the database `url` (named `database`). */
  pgbench(url: string, database: string): Side<PgbenchMeasured> {
    const databases = new Set([database]);
    return async (seconds) => {
      const pg0 = await this.postgres(databases);
      const round = await pgbench(url, this.connections, seconds);
      const pg1 = await this.postgres(databases);
      return { ...round, postgresCpu: pg0 === null || pg1 === null ? null : pg1 - pg0 };
    };
  }
}
