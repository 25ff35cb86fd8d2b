import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BASE62, newId } from '../src/ids.ts';

describe('ids', () => {
  it('sort in the order they were made, also within one millisecond', () => {
    const ids = Array.from({ length: 5000 }, () => newId('evt'));
    for (let i = 1; i < ids.length; i++) {
      // Byte order, as PostgreSQL's COLLATE "C" compares them.
      assert.ok(Buffer.compare(Buffer.from(ids[i - 1]!), Buffer.from(ids[i]!)) < 0, ids[i]);
    }
    assert.equal(new Set(ids).size, ids.length);
    for (const id of ids) {
      assert.match(id, /^evt_[0-9A-Za-z]{22}$/);
      assert.ok([...id.slice(4)].every((c) => BASE62.includes(c)));
    }
  });

  it('carry over when a random digit is the last one of the alphabet', () => {
    // Many ids in one millisecond walk through carries; still strictly increasing.
    let previous = newId('evt');
    for (let i = 0; i < 200_000; i++) {
      const next = newId('evt');
      assert.ok(previous < next, `${previous} then ${next}`);
      previous = next;
    }
  });
});
