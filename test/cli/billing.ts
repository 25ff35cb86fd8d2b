// Runs the operator tool as an operator does: `billing <args>` in a child process, on the
// database `env` names; resolves with its standard output, rejects with its error output.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const BIN = path.resolve('bin/billing.js');

export async function billing(env: Record<string, string>, ...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env, LOG_LEVEL: 'silent' },
  });
  return stdout;
}
