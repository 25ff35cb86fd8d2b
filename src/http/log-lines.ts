// Where the process's log lines go: standard output, in batches.
//
// Lines wait at most FLUSH_MS, or until BATCH_BYTES have gathered, and then leave in one
// write: a busy server makes a few writes a second instead of one per request (each write to
// a pipe wakes the process reading it, on the same cores), and a quiet one shows a line within
// FLUSH_MS. The write is synchronous: no thread-pool hand-off per write (pino's asynchronous
// destination costs one for each, and re-measures its whole pending buffer on every line).
// What is pending is written when the process exits. A reader that cannot keep up (a full
// pipe) slows the server rather than losing lines; one that has gone away ends logging.
import { writeSync } from 'node:fs';

const RETRY_MS = 1;
const FLUSH_MS = 20;
const BATCH_BYTES = 64 * 1024;
const pause = new Int32Array(new SharedArrayBuffer(4));

export class LogLines {
  private pending: string[] = [];
  private pendingLength = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly flushNow = () => this.flush();

  constructor(private readonly fd = 1) {
    process.on('exit', this.flushNow);
  }

  write(line: string): boolean {
    if (this.closed) return true;
    this.pending.push(line);
    this.pendingLength += line.length;
    if (this.pendingLength >= BATCH_BYTES) this.flush();
    else if (this.timer === undefined) {
      this.timer = setTimeout(this.flushNow, FLUSH_MS);
      // A pending line never keeps the process alive; exit writes it.
      this.timer.unref();
    }
    return true;
  }

  /** Writes every pending line now. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const data = Buffer.from(this.pending.join(''));
    this.pending = [];
    this.pendingLength = 0;
    let offset = 0;
    while (offset < data.length && !this.closed) {
      try {
        offset += writeSync(this.fd, data, offset);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') Atomics.wait(pause, 0, 0, RETRY_MS);
        else this.closed = true;
      }
    }
  }
}
