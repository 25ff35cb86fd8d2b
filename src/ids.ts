// Object ids: a type prefix, then a time-ordered part and a random part, all base62.
// Time-ordered ids keep index inserts local and make `id` a natural tie-breaker after
// createdAt in keyset paging.
import { randomInt } from 'node:crypto';
import { systemClock } from './clock.ts';

export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

export function toBase62(value: number, width: number): string {
  let out = '';
  let rest = value;
  while (rest > 0) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out.padStart(width, '0');
}

export type IdPrefix =
  | 'ten'
  | 'key'
  | 'cus'
  | 'inv'
  | 'il'
  | 'txr'
  | 'cn'
  | 'cnl'
  | 'evt'
  | 'we'
  | 'wd'
  | 'mail'
  | 'pay'
  | 'prod'
  | 'price'
  | 'sub'
  | 'si'
  | 'pl'
  | 'clock'
  | 'mtr'
  | 'usr'
  | 'uinv';

// Monotonic within a process (as ULID's monotonic factory): an id made in the same millisecond
// as the previous one (or after the clock stepped back) keeps that millisecond and takes the
// previous random part plus one, so ids made one after another sort in the order they were
// made (two events of one transaction, written by one statement at the same createdAt, list in
// the order they were recorded).
let lastMs = 0;
let lastRandom = '';

function incremented(digits: string): string {
  const out = digits.split('');
  for (let i = out.length - 1; i >= 0; i--) {
    const next = BASE62.indexOf(out[i]!) + 1;
    if (next < 62) {
      out[i] = BASE62[next]!;
      return out.join('');
    }
    out[i] = BASE62[0]!;
  }
  // 62^14 ids in one millisecond: not reachable; start a fresh random part.
  return randomBase62(digits.length);
}

export function newId(prefix: IdPrefix): string {
  // The system clock, deliberately not the Clock a service is given (src/clock.ts): the time
  // prefix only orders ids (and spreads index inserts), it means no business time. An id made
  // under a test clock set years ahead would otherwise sort after every id made later in real
  // time, and ids are cursors (src/paging.ts) that must follow the order rows were written in.
  const now = systemClock.nowMs();
  if (now > lastMs) {
    lastMs = now;
    lastRandom = randomBase62(14);
  } else {
    lastRandom = incremented(lastRandom);
  }
  return `${prefix}_${toBase62(lastMs, 8)}${lastRandom}`;
}
