import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { LogLines } from '../../src/http/log-lines.ts';

const shortly = () => new Promise((resolve) => setTimeout(resolve, 60));

function tempFile() {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'log-lines-')), 'out.log');
  return { file, fd: openSync(file, 'w') };
}

describe('log lines', () => {
  it('writes the lines that gather within a few milliseconds together, in order', async () => {
    const { file, fd } = tempFile();
    const lines = new LogLines(fd);
    for (let i = 0; i < 100; i++) lines.write(`{"n":${i}}\n`);
    assert.equal(readFileSync(file, 'utf8'), '', 'held briefly, to go out together');
    await shortly();
    const written = readFileSync(file, 'utf8').trim().split('\n');
    assert.deepEqual(
      written.map((l) => JSON.parse(l).n),
      Array.from({ length: 100 }, (_, i) => i),
    );
    // A line that comes alone is not held back for company.
    lines.write('{"n":"alone"}\n');
    await shortly();
    assert.match(readFileSync(file, 'utf8'), /"alone"/);
    closeSync(fd);
  });

  it('writes at once when a large batch has gathered', () => {
    const { file, fd } = tempFile();
    const lines = new LogLines(fd);
    const line = `{"filler":"${'x'.repeat(1000)}"}\n`;
    for (let i = 0; i < 70; i++) lines.write(line);
    assert.ok(readFileSync(file, 'utf8').length >= 64 * 1024);
    lines.flush();
    assert.equal(readFileSync(file, 'utf8'), line.repeat(70));
    closeSync(fd);
  });

  it('writes what is pending when flushed (as at exit), and keeps multi-byte text whole', () => {
    const { file, fd } = tempFile();
    const lines = new LogLines(fd);
    lines.write('{"name":"Zoë — 東京"}\n');
    lines.flush();
    assert.equal(readFileSync(file, 'utf8'), '{"name":"Zoë — 東京"}\n');
    closeSync(fd);
  });

  it('stops logging, without throwing, once its output is gone', async () => {
    const { fd } = tempFile();
    const lines = new LogLines(fd);
    closeSync(fd);
    lines.write('lost\n');
    assert.doesNotThrow(() => lines.flush());
    assert.doesNotThrow(() => lines.write('after\n'));
    await shortly();
  });
});
