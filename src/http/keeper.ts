// A value computed once per key and kept for the next time, for computations that repeat
// with the same input on the hot path (escaping a key's ids, verifying a cursor, a key's
// whoami body). Bounded: at `max` entries it forgets them all and starts again, which keeps
// memory flat under any input without the bookkeeping of an LRU.

/** `compute(value)`, kept under `keyOf(value)` (at most `max` kept) for the next time. */
export function keeper<T, V>(
  keyOf: (value: T) => string,
  compute: (value: T) => V,
  max = 10_000,
): (value: T) => V {
  const kept = new Map<string, V>();
  return (value: T): V => {
    const key = keyOf(value);
    let found = kept.get(key);
    if (found !== undefined || kept.has(key)) return found as V;
    if (kept.size >= max) kept.clear();
    found = compute(value);
    kept.set(key, found);
    return found;
  };
}
