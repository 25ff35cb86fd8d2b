// The figures every reliability scenario reports: how many cases it ran, how many failed and
// why, how long it took, and a few measurements of its own (kills, retries, latencies). The
// short tests assert that nothing failed; the soak prints the same figures as a table.

export interface Figures {
  category: string;
  cases: number;
  failures: number;
  durationMs: number;
  /** The first failures, in words (the count above is complete). */
  failureMessages: string[];
  /** Scenario-specific measurements, e.g. `{ kills: 3, retries: 41 }`. */
  notes: Record<string, number | string>;
}

const KEPT_MESSAGES = 200;
const SHOWN_MESSAGES = 30;

/** Counts cases and failures while a scenario runs. */
export class Tally {
  cases = 0;
  failures = 0;
  readonly failureMessages: string[] = [];
  readonly notes: Record<string, number | string> = {};
  private readonly started = Date.now();

  readonly category: string;

  constructor(category: string) {
    this.category = category;
  }

  /** One case ran. */
  count(n = 1): void {
    this.cases += n;
  }

  fail(message: string): void {
    this.failures++;
    if (this.failureMessages.length < KEPT_MESSAGES) this.failureMessages.push(message);
  }

  /** Counts a case and records a failure when `ok` is false. */
  check(ok: boolean, message: () => string): boolean {
    this.count();
    return this.expect(ok, message);
  }

  /** Records a failure when `ok` is false (within a case already counted). */
  expect(ok: boolean, message: () => string): boolean {
    if (!ok) this.fail(message());
    return ok;
  }

  note(name: string, value: number | string): void {
    this.notes[name] = value;
  }

  add(name: string, by = 1): void {
    this.notes[name] = Number(this.notes[name] ?? 0) + by;
  }

  max(name: string, value: number): void {
    this.notes[name] = Math.max(Number(this.notes[name] ?? 0), value);
  }

  figures(): Figures {
    return {
      category: this.category,
      cases: this.cases,
      failures: this.failures,
      durationMs: Date.now() - this.started,
      failureMessages: [...this.failureMessages],
      notes: { ...this.notes },
    };
  }
}

/** One line, e.g. `crash: 412 cases, 0 failures, 9.3 s (kills 3, retries 57)`. */
export function describeFigures(f: Figures): string {
  const notes = Object.entries(f.notes)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return `${f.category}: ${f.cases} cases, ${f.failures} failures, ${(f.durationMs / 1000).toFixed(1)} s${notes ? ` (${notes})` : ''}`;
}

/** For assertion messages: the figures and the first failures. */
export function explainFailures(f: Figures): string {
  const shown = f.failureMessages.slice(0, SHOWN_MESSAGES).map((m) => `  - ${m}`);
  if (f.failures > shown.length) shown.push(`  … and ${f.failures - shown.length} more`);
  return [describeFigures(f), ...shown].join('\n');
}
