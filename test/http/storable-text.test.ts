import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { unstorableTextAt } from '../../src/http/storable-text.ts';

describe('storable text', () => {
  it('finds nothing in text PostgreSQL can store', () => {
    assert.equal(
      unstorableTextAt({ a: 'Zoë — 東京 😀', b: [1, 'x', { c: null, d: true }] }),
      undefined,
    );
    assert.equal(unstorableTextAt(undefined), undefined);
    assert.equal(unstorableTextAt('plain'), undefined);
  });

  it('names the field holding a NUL or an unpaired surrogate, however deep', () => {
    assert.equal(unstorableTextAt({ memo: 'a\u0000b' }), 'memo');
    assert.equal(
      unstorableTextAt({ lines: [{ description: 'ok' }, { description: '\ud800' }] }),
      'lines.1.description',
    );
    assert.equal(unstorableTextAt({ metadata: { 'k\udc00': 'v' } }), 'metadata');
    assert.equal(unstorableTextAt('\u0000'), '');
  });
});
