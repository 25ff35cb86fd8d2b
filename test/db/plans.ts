// The plans of the statements the app really runs, as PostgreSQL executed them: auto_explain
// (loaded into every session of one database) sends each plan, with ANALYZE's counts, to the
// client as a notice, and every pg client of this process hands its notices over. Nothing here
// repeats the SQL of the stores: what is judged is what the app sent, with the values it sent,
// including the statements PL/pgSQL functions and foreign-key checks run inside them.
import pg from 'pg';
import type { Queryable } from '../../src/db/pool.ts';

export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Loops'?: number;
  'Subplans Removed'?: number;
  Plans?: PlanNode[];
}

export interface ExecutedPlan {
  query: string;
  plan: PlanNode;
}

/** Makes every new session of database `name` report each statement's executed plan. */
export async function explainEveryStatement(db: Queryable, name: string): Promise<void> {
  const settings: [string, string][] = [
    ['session_preload_libraries', 'auto_explain'],
    ['auto_explain.log_min_duration', '0'],
    ['auto_explain.log_analyze', 'on'],
    ['auto_explain.log_timing', 'off'],
    ['auto_explain.log_format', 'json'],
    ['auto_explain.log_nested_statements', 'on'],
    ['auto_explain.log_level', 'notice'],
  ];
  for (const [setting, value] of settings) {
    await db.query(
      `ALTER DATABASE ${pg.escapeIdentifier(name)} SET ${setting} = ${pg.escapeLiteral(value)}`,
    );
  }
}

/**
 * Collects the plans reported to every pg client this process connects from now on; `stop()`
 * ends the collection. (The clients of the server's pool are made inside the app, so the hook
 * is on the client class.)
 */
export function collectPlans(): { plans: ExecutedPlan[]; stop(): void } {
  const plans: ExecutedPlan[] = [];
  const prototype = pg.Client.prototype as unknown as { connect: (...args: unknown[]) => unknown };
  const connect = prototype.connect;
  const onNotice = (notice: { message?: string }) => {
    const at = notice.message?.indexOf('{') ?? -1;
    if (!notice.message?.includes('plan:') || at === -1) return;
    const explained = JSON.parse(notice.message.slice(at)) as {
      'Query Text': string;
      Plan: PlanNode;
    };
    plans.push({ query: explained['Query Text'], plan: explained.Plan });
  };
  prototype.connect = function (this: pg.Client, ...args: unknown[]) {
    this.on('notice', onNotice);
    return connect.apply(this, args);
  };
  return { plans, stop: () => (prototype.connect = connect) };
}

function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

export interface PartitionReport {
  /** Statements that ran on more than one partition of a table, with the tables. */
  spread: { query: string; tables: string[] }[];
  /** Statements served by a documented cross-tenant index (exempt). */
  crossTenant: string[];
  /** Partitioned tables that some checked statement read or wrote. */
  tablesSeen: Set<string>;
  /** Statements that pruned partitions at run time (a generic plan's parameters). */
  prunedAtRunTime: number;
  checked: number;
}

/**
 * Judges each executed plan: how many partitions of each partitioned table it actually ran on
 * (a pruned subplan is removed or never executed). `parentOf` maps each partition, and each
 * partition's index, to its parent.
 */
export function partitionsTouched(
  plans: readonly ExecutedPlan[],
  parentOf: ReadonlyMap<string, string>,
  crossTenant: {
    indexes: Readonly<Record<string, string>>;
    statements: Readonly<Record<string, string>>;
    marker: RegExp;
  },
): PartitionReport {
  const report: PartitionReport = {
    spread: [],
    crossTenant: [],
    tablesSeen: new Set(),
    prunedAtRunTime: 0,
    checked: 0,
  };
  const partitioned = new Set(parentOf.values());
  const isPartition = (name: string | undefined) => name !== undefined && parentOf.has(name);
  for (const { query, plan } of plans) {
    const nodes = nodesOf(plan);
    const relations = nodes.flatMap((n) => n['Relation Name'] ?? []);
    if (!relations.some((r) => isPartition(r) || partitioned.has(r))) continue;
    const indexes = nodes.flatMap((n) => n['Index Name'] ?? []);
    // Exempt: a statement served by a documented cross-tenant index, or marked as one of the
    // documented cross-tenant statements. A marker that names no documented statement is not.
    const marked = crossTenant.marker.exec(query)?.[1];
    if (
      indexes.some((i) => Object.hasOwn(crossTenant.indexes, parentOf.get(i) ?? i)) ||
      (marked !== undefined && Object.hasOwn(crossTenant.statements, marked))
    ) {
      report.crossTenant.push(query);
      continue;
    }
    report.checked++;
    // Partitions actually run, per table: a pruned subplan is removed or never executed.
    const ran = new Map<string, Set<string>>();
    for (const relation of relations) {
      report.tablesSeen.add(parentOf.get(relation) ?? relation);
    }
    for (const node of nodes) {
      const relation = node['Relation Name'];
      if (!isPartition(relation) || (node['Actual Loops'] ?? 0) === 0) continue;
      const parent = parentOf.get(relation!)!;
      ran.set(parent, (ran.get(parent) ?? new Set()).add(relation!));
    }
    const prunedLate = nodes.some(
      (n) =>
        (n['Subplans Removed'] ?? 0) > 0 ||
        (isPartition(n['Relation Name']) && n['Actual Loops'] === 0),
    );
    if (prunedLate) report.prunedAtRunTime++;
    const tables = [...ran].filter(([, parts]) => parts.size > 1).map(([parent]) => parent);
    if (tables.length > 0) report.spread.push({ query, tables });
  }
  return report;
}

/** Each partition (of a table or of an index) by name → its parent's name. */
export async function partitionParents(db: Queryable): Promise<Map<string, string>> {
  const { rows } = await db.query<{ child: string; parent: string }>(
    `SELECT c.relname AS child, p.relname AS parent
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent`,
  );
  return new Map(rows.map((r) => [r.child, r.parent]));
}
