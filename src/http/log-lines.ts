// Where the process's log lines go: standard output, in one write per turn of the event loop.
//
// Lines that come while the server handles a burst of requests leave together, so a busy
// server makes one write for many lines; a line that comes alone leaves at the end of the same
// turn, so nothing waits for more traffic to show up. The write is synchronous: no thread hand
// off per write (pino's asynchronous destination costs a thread pool round trip for each, and
// re-measures its whole pending buffer on every line), and a line is out before the process
// exits. A reader that cannot keep up (a full pipe) slows the server rather than losing lines;
// one that has gone away (EPIPE) ends logging.
import { writeSync } from 'node:fs';

const RETRY_MS = 1;
const pause = new Int32Array(new SharedArrayBuffer(4));

export class LogLines {
  private pending: string[] = [];
  private scheduled = false;
  private closed = false;
  private readonly flushLater = () => this.flush();

  constructor(private readonly fd = 1) {
    process.on('exit', this.flushLater);
  }

  write(line: string): boolean {
    if (this.closed) return true;
    this.pending.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushLater);
    }
    return true;
  }

  /** Writes every pending line now. */
  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const data = Buffer.from(this.pending.join(''));
    this.pending = [];
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
