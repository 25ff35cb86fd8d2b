// Where the process's log lines go: standard output, in batches.
//
// Lines wait at most FLUSH_MS, or until BATCH_BYTES have gathered, and then leave in one
// write: a busy server makes a few writes a second instead of one per request (each write to
// a pipe wakes the process reading it, on the same cores), and a quiet one shows a line within
// FLUSH_MS. A batch is written off the event loop (one thread-pool write at a time, the next
// batch gathering meanwhile), so a reader that is slow to drain its pipe delays log lines, not
// requests. (pino's asynchronous destination does the same per write, and re-measures its
// whole pending buffer on every line.) What is pending when the process exits is written
// synchronously then. A reader that has gone away ends logging.
//
// A reader slower than the lines come must not cost memory without end: past
// MAX_PENDING_BYTES waiting, lines are dropped and counted, and a line saying how many takes
// their place once the reader catches up (as sonic-boom's maxLength drops, for pino).
import { write, writeSync } from 'node:fs';

const FLUSH_MS = 20;
const BATCH_BYTES = 64 * 1024;
export const MAX_PENDING_BYTES = 4 * 1024 * 1024;
// A full non-blocking pipe is tried again this soon: one pipe's worth (64 KB) a millisecond.
const RETRY_MS = 1;
const pause = new Int32Array(new SharedArrayBuffer(4));

export class LogLines {
  /** Lines waiting, encoded: full buffers, then `current` up to `used`. */
  private pending: Buffer[] = [];
  private current = Buffer.allocUnsafe(BATCH_BYTES);
  private used = 0;
  private pendingLength = 0;
  private timer: NodeJS.Timeout | undefined;
  /** The batch being written, from `offset` on; undefined when no write is under way. */
  private writing: Buffer | undefined;
  private offset = 0;
  private closed = false;
  private dropped = 0;
  private readonly flushNow = () => this.flush();
  private readonly written = (error: NodeJS.ErrnoException | null, bytes: number) =>
    this.onWritten(error, bytes);

  constructor(private readonly fd = 1) {
    process.on('exit', () => this.flushSync());
  }

  write(line: string): boolean {
    if (this.closed) return true;
    // Once dropping, every line is dropped until the notice is written, so that no line
    // overtakes the ones dropped before it.
    if (this.dropped > 0 || this.over(line)) {
      this.dropped++;
      // Nothing else may be pending (one line over the bound): the notice must still go out.
      this.flushSoon();
      return true;
    }
    this.append(line);
    this.flushSoon();
    return true;
  }

  /** Whether the line would take the bytes waiting past MAX_PENDING_BYTES. */
  private over(line: string): boolean {
    const room = MAX_PENDING_BYTES - this.pendingLength;
    return line.length * 3 > room && Buffer.byteLength(line) > room;
  }

  /**
   * Encodes a line into the batch buffer: no string is kept, and the batch needs no joining
   * (joining and then encoding the lines was a visible share of the cheapest request).
   */
  private append(line: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    if (this.used + line.length * 3 > this.current.length) {
      const bytes = Buffer.byteLength(line);
      if (this.used + bytes > this.current.length) {
        this.seal();
        if (bytes > this.current.length) this.current = Buffer.allocUnsafe(bytes);
      }
    }
    const bytes = this.current.write(line, this.used);
    this.used += bytes;
    this.pendingLength += bytes;
  }

  /** The current buffer joins the full ones; a new one takes the next lines. */
  private seal(): void {
    if (this.used === 0) return;
    this.pending.push(this.current.subarray(0, this.used));
    this.current = Buffer.allocUnsafe(BATCH_BYTES);
    this.used = 0;
  }

  /** Pending lines go at BATCH_BYTES at once, else within FLUSH_MS. */
  private flushSoon(): void {
    if (this.pendingLength >= BATCH_BYTES) this.flush();
    else if (this.hasPending() && this.timer === undefined) {
      this.timer = setTimeout(this.flushNow, FLUSH_MS);
      // A pending line never keeps the process alive; exit writes it.
      this.timer.unref();
    }
  }

  /** Starts writing what is pending, unless a write is under way (its end starts the next). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.writing !== undefined || this.closed || !this.hasPending()) return;
    this.writing = this.takePending();
    this.offset = 0;
    write(this.fd, this.writing, 0, this.writing.length, null, this.written);
  }

  /** Lines to write, or the notice of lines dropped. */
  private hasPending(): boolean {
    return this.pendingLength > 0 || this.dropped > 0;
  }

  /** The bytes waiting for the reader (at most MAX_PENDING_BYTES). */
  get pendingBytes(): number {
    return this.pendingLength;
  }

  private takePending(): Buffer {
    // The lines dropped came after every pending one, and before any written from now on.
    if (this.dropped > 0) {
      this.append(
        `${JSON.stringify({ level: 40, time: Date.now(), pid: process.pid, msg: 'log lines dropped: standard output was not drained in time', dropped: this.dropped })}\n`,
      );
      this.dropped = 0;
    }
    this.seal();
    const data = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    this.pending = [];
    this.pendingLength = 0;
    return data;
  }

  private onWritten(error: NodeJS.ErrnoException | null, bytes: number): void {
    const batch = this.writing!;
    if (error) {
      if (error.code !== 'EAGAIN') {
        this.closed = true;
        this.writing = undefined;
        return;
      }
      setTimeout(() => this.writeRest(), RETRY_MS).unref();
      return;
    }
    this.offset += bytes;
    if (this.offset < batch.length) return this.writeRest();
    this.writing = undefined;
    this.flushSoon();
  }

  private writeRest(): void {
    const batch = this.writing!;
    write(this.fd, batch, this.offset, batch.length - this.offset, null, this.written);
  }

  /**
   * Writes what is pending now (at exit). A batch already handed to a write is left to it: its
   * progress is not known here, and writing it again could repeat lines.
   */
  flushSync(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.hasPending()) return;
    const data = this.takePending();
    let offset = 0;
    while (offset < data.length && !this.closed) {
      try {
        offset += writeSync(this.fd, data, offset);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') Atomics.wait(pause, 0, 0, 1);
        else this.closed = true;
      }
    }
  }
}
