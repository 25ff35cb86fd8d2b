import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keeper } from '../../src/http/keeper.ts';

describe('keeper', () => {
  it('computes once per key and answers the kept value after', () => {
    const computed: string[] = [];
    const upper = keeper(
      (s: string) => s,
      (s: string) => {
        computed.push(s);
        return s.toUpperCase();
      },
    );
    assert.equal(upper('a'), 'A');
    assert.equal(upper('b'), 'B');
    assert.equal(upper('a'), 'A');
    assert.deepEqual(computed, ['a', 'b']);
  });

  it('keeps null and undefined answers as answers', () => {
    let calls = 0;
    const nothing = keeper(
      (s: string) => s,
      (s: string) => {
        calls++;
        return s === 'n' ? null : undefined;
      },
    );
    assert.equal(nothing('n'), null);
    assert.equal(nothing('u'), undefined);
    assert.equal(nothing('n'), null);
    assert.equal(nothing('u'), undefined);
    assert.equal(calls, 2);
  });

  it('forgets everything once it holds max values, then keeps again', () => {
    const computed: number[] = [];
    const square = keeper(
      (n: number) => String(n),
      (n: number) => {
        computed.push(n);
        return n * n;
      },
      2,
    );
    square(1);
    square(2);
    square(1); // kept
    square(3); // full: forgets 1 and 2, keeps 3
    square(3); // kept
    square(1); // forgotten: computed again
    assert.deepEqual(computed, [1, 2, 3, 1]);
  });
});
