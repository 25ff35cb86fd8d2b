// How the CLI prints: JSON with --json, otherwise a readable rendering of the same object.
export function print(value: unknown, json: boolean): void {
  if (json) {
    console.log(JSON.stringify(value, null, 2));
    return;
  }
  const rows = Array.isArray(value) ? value : [value];
  for (const row of rows) {
    const entries = Object.entries(row as Record<string, unknown>).filter(([, v]) => v !== null);
    console.log(
      entries
        .map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
        .join('\n'),
    );
    if (rows.length > 1) console.log('');
  }
}

/** "90", "90s", "15m", "2h", "7d" → seconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+)\s*(s|m|h|d)?$/.exec(text.trim());
  if (!match) throw new Error(`not a duration: ${text} (use e.g. 90s, 15m, 2h, 7d)`);
  const unit = { s: 1, m: 60, h: 3600, d: 86400 }[(match[2] ?? 's') as 's'];
  return Number(match[1]) * unit;
}
