// The code to compare with, checked out beside this one: a temporary git worktree at the
// baseline's commit with its own node_modules, removed at the end of the run.
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Checkout {
  root: string;
  commit: string;
  remove(): Promise<void>;
}

export async function checkOutBaseline(ref: string, log: (m: string) => void): Promise<Checkout> {
  const commit = (await run('git', ['rev-parse', '--verify', `${ref}^{commit}`])).stdout.trim();
  const root = join(tmpdir(), `billing-bench-baseline-${process.pid}`);
  log(`baseline ${ref} (${commit.slice(0, 7)}): git worktree add ${root}, npm ci …`);
  await run('git', ['worktree', 'add', '--detach', root, commit]);
  const remove = async () => {
    await run('git', ['worktree', 'remove', '--force', root]).catch((error: unknown) =>
      log(`could not remove the baseline worktree ${root}: ${String(error)}`),
    );
  };
  try {
    await run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, maxBuffer: 1 << 26 });
  } catch (error) {
    await remove();
    throw error;
  }
  return { root, commit, remove };
}

/** The commit this checkout is at, and whether it has changes not committed (results aside). */
export async function describeHead(): Promise<string> {
  const commit = (await run('git', ['rev-parse', '--short', 'HEAD'])).stdout.trim();
  const status = await run('git', [
    'status',
    '--porcelain',
    '--',
    '.',
    ':!bench/results.md',
    ':!bench/results.json',
  ]);
  const dirty = status.stdout.trim() !== '';
  return dirty ? `${commit} with uncommitted changes` : commit;
}
