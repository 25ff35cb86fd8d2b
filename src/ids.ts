// Object ids: a type prefix, then a time-ordered part and a random part, all base62.
// Time-ordered ids keep index inserts local and make `id` a natural tie-breaker after
// createdAt in keyset paging.
import { randomInt } from 'node:crypto';

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
  'ten' | 'key' | 'cus' | 'inv' | 'il' | 'txr' | 'cn' | 'cnl' | 'evt' | 'we' | 'wd';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${toBase62(Date.now(), 8)}${randomBase62(14)}`;
}
