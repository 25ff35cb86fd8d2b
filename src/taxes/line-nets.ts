// Each line's amount excluding tax, for documents (EN 16931 BT-131): the lines of a rate must
// add up exactly to the rate's taxable amount in the frozen breakdown. With exclusive rates
// that is the line amount itself. With inclusive rates each rate's tax is shared out over the
// lines that carry it, in proportion to their amounts (largest remainder, so the shares add up
// to the tax exactly), and a line's net is its amount less its shares.

/** ⌊n / d⌋ for d > 0, also for negative n (BigInt division truncates toward zero). */
function floorDiv(n: bigint, d: bigint): bigint {
  const q = n / d;
  return n % d !== 0n && n < 0n ? q - 1n : q;
}

/**
 * `total` in shares proportional to `weights` (which may be negative, as discount lines are;
 * their sum must be positive), adding up to `total` exactly.
 */
export function shareOut(total: bigint, weights: readonly bigint[]): bigint[] {
  const whole = weights.reduce((a, b) => a + b, 0n);
  if (whole <= 0n) return weights.map(() => 0n);
  const shares = weights.map((w, index) => {
    const floor = floorDiv(w * total, whole);
    return { index, floor, remainder: w * total - floor * whole };
  });
  let left = total - shares.reduce((a, s) => a + s.floor, 0n);
  const parts = shares.map((s) => s.floor);
  const order = [...shares].sort((a, b) =>
    a.remainder !== b.remainder ? (a.remainder > b.remainder ? -1 : 1) : a.index - b.index,
  );
  for (const share of order) {
    if (left <= 0n) break;
    parts[share.index]! += 1n;
    left -= 1n;
  }
  return parts;
}

export function lineNetAmounts(
  lines: readonly { amount: number; taxRateIds: readonly string[] }[],
  breakdown: readonly { taxRateId: string; amount: number }[],
  inclusive: boolean,
): number[] {
  const nets = lines.map((l) => BigInt(l.amount));
  if (!inclusive) return nets.map(Number);
  for (const rate of breakdown) {
    const carrying = lines.flatMap((l, i) => (l.taxRateIds.includes(rate.taxRateId) ? [i] : []));
    const parts = shareOut(
      BigInt(rate.amount),
      carrying.map((i) => BigInt(lines[i]!.amount)),
    );
    carrying.forEach((lineIndex, k) => (nets[lineIndex]! -= parts[k]!));
  }
  return nets.map(Number);
}
