import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { LogLines, MAX_PENDING_BYTES } from '../../src/http/log-lines.ts';

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

  it('keeps at most 4 MB for a reader that falls behind, and says how many lines it dropped', async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'log-lines-'));
    const file = path.join(dir, 'out.log');
    // A reader that starts draining only after a while.
    const reader = spawn('sh', ['-c', `sleep 0.5; cat > ${file}`], {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    t.after(() => reader.kill());
    const fd = (reader.stdin as unknown as { _handle: { fd: number } })._handle.fd;
    const lines = new LogLines(fd);
    const line = (i: number) => `{"n":${i},"filler":"${'x'.repeat(1000)}"}\n`;
    const total = 10_000; // about 10 MB
    for (let i = 0; i < total; i++) lines.write(line(i));
    assert.ok(lines.pendingBytes <= MAX_PENDING_BYTES, `${lines.pendingBytes} bytes pending`);
    const after = 'after\n';
    await new Promise((resolve) => setTimeout(resolve, 100));
    lines.write(`{"n":"${after.trim()}"}\n`);
    let written: any[] = [];
    for (let waited = 0; waited < 10_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      // Whole lines only: the last one may be half written yet.
      written = (existsSync(file) ? readFileSync(file, 'utf8') : '')
        .split('\n')
        .slice(0, -1)
        .map((l) => JSON.parse(l));
      if (written.at(-1)?.n === 'after') break;
    }
    const kept = written.filter((l) => typeof l.n === 'number').map((l) => l.n);
    assert.deepEqual(
      kept,
      Array.from({ length: kept.length }, (_, i) => i),
      'a prefix, in order',
    );
    assert.ok(kept.length < total, 'some were dropped');
    const notice = written.find((l) => l.dropped !== undefined);
    assert.equal(notice.dropped, total - kept.length);
    assert.equal(written.indexOf(notice), kept.length, 'the notice where the lines were dropped');
    assert.equal(written.at(-1).n, 'after', 'lines written later go on after it');
  });

  it('goes on logging after a single line longer than the bound was dropped', async () => {
    const { file, fd } = tempFile();
    const lines = new LogLines(fd);
    lines.write(`{"huge":"${'x'.repeat(MAX_PENDING_BYTES)}"}\n`);
    await shortly();
    lines.write('{"n":"after"}\n');
    await shortly();
    const written = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      written.map((l) => l.dropped ?? l.n),
      [1, 'after'],
    );
    closeSync(fd);
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
