import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
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

  it('writes at once when a large batch has gathered', async () => {
    const { file, fd } = tempFile();
    const lines = new LogLines(fd);
    const line = `{"filler":"${'x'.repeat(1000)}"}\n`;
    for (let i = 0; i < 70; i++) lines.write(line);
    // Handed to a write at 64 KB, without waiting for the timer.
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.ok(readFileSync(file, 'utf8').length >= 64 * 1024);
    await shortly();
    assert.equal(readFileSync(file, 'utf8'), line.repeat(70));
    closeSync(fd);
  });

  it('keeps serving while a reader does not drain its pipe', async (t) => {
    // A child that never reads its stdin: our end of that pipe fills up.
    const reader = spawn('sleep', ['5'], { stdio: ['pipe', 'ignore', 'ignore'] });
    t.after(() => reader.kill());
    const fd = (reader.stdin as unknown as { _handle: { fd: number } })._handle.fd;
    const lines = new LogLines(fd);
    const line = `{"filler":"${'x'.repeat(1000)}"}\n`;
    for (let i = 0; i < 2000; i++) lines.write(line);
    const started = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(Date.now() - started < 500, `the event loop was held ${Date.now() - started} ms`);
  });

  it('writes what is pending when flushed at exit, and keeps multi-byte text whole', () => {
    const { file, fd } = tempFile();
    const lines = new LogLines(fd);
    lines.write('{"name":"Zoë — 東京"}\n');
    lines.flushSync();
    assert.equal(readFileSync(file, 'utf8'), '{"name":"Zoë — 東京"}\n');
    closeSync(fd);
  });

  it('stops logging, without throwing, once its output is gone', async () => {
    const { fd } = tempFile();
    const lines = new LogLines(fd);
    closeSync(fd);
    lines.write('lost\n');
    assert.doesNotThrow(() => lines.flushSync());
    assert.doesNotThrow(() => lines.write('after\n'));
    await shortly();
  });
});
