// The branch that decides whether a stage-boundary case of the fault-injection files runs its own
// next run or is proven by an earlier case's (startState in fault-runs.ts): two recovered projects
// share a start state exactly when a fresh start would read the same from both. What only differs
// between any two copies (the copy's root, diff's header times, the runs' own logs, the files a
// fresh start moves to history/, the dead holder of the lock) keeps the state; any byte a fresh run
// reads (a patch, a backup, a .written that no longer names the set, a journal entry, a leftover
// temp file or scratch folder, a source, a mode) gives a new one.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { instantiateFixture } from '../../scripts/instantiate-fixture.mjs';
import { discopopDigest, readSet } from '../../src/store/patch-set-files.js';
import { startState } from './fault-runs.js';

const made: string[] = [];

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface Copy {
  root: string;
  dotDir: string;
  workDir: string;
}

/** A demo copy as a recovery leaves it: a dead run's lock, its rotated files and its log beside the project. */
function recoveredCopy(label: string): Copy {
  const { root, dotDir } = instantiateFixture('demo');
  const workDir = mkdtempSync(path.join(tmpdir(), 'pr-fault-work-'));
  made.push(path.dirname(root), workDir);
  const repair = path.join(dotDir, 'patch_repair');
  mkdirSync(path.join(repair, 'attempts', '2', '1'), { recursive: true });
  writeFileSync(path.join(repair, 'run.lock'), `{"pid":${label.length + 1000},"host":"h","started":"${label}"}\n`);
  writeFileSync(path.join(repair, 'progress.jsonl'), `{"type":"run-started","run":"${label}"}\n`);
  writeFileSync(path.join(repair, 'results.json'), `{"run":{"id":"${label}"}}\n`);
  writeFileSync(path.join(repair, 'run-state.json'), `{"run_id":"${label}"}\n`);
  writeFileSync(path.join(repair, 'attempts', '2', '1', 'prompt.txt'), label);
  writeFileSync(path.join(root, `patch-repair-${label.length}.log`), `${label}\n`);
  return { root, dotDir, workDir };
}

const state = (copy: Copy) => startState(copy.root, copy.workDir);

/** Suggestion 2 as a completed write-back leaves it: the set replaced, its backup, and the .written naming the new set. */
async function repairTwo(copy: Copy, headerTime: string): Promise<void> {
  const folder = path.join(copy.dotDir, 'patch_generator', '2');
  const backup = path.join(copy.dotDir, 'patch_repair', 'backups', '2');
  mkdirSync(backup, { recursive: true });
  const generated = readFileSync(path.join(folder, '3.patch'), 'utf8');
  writeFileSync(path.join(backup, '3.patch'), generated);
  writeFileSync(
    path.join(folder, '3.patch'),
    generated.replace(/^(\+\+\+ \S+)\t.*$/m, `$1\t${headerTime}`).replace('#pragma omp', '#pragma omp  '),
  );
  writeFileSync(
    path.join(copy.dotDir, 'patch_repair', 'backups', '2.written'),
    `${discopopDigest(await readSet(folder))}\n`,
  );
}

describe('the start state a recovered project gives the next run', () => {
  it('is the same for two copies that differ only in what a fresh start does not read', async () => {
    const [a, b] = [recoveredCopy('first'), recoveredCopy('the second run')];
    expect(await state(a)).toEqual(await state(b));
    await repairTwo(a, '2026-12-03 14:00:00.000000000 +0000');
    await repairTwo(b, '2026-12-03 14:59:59.999999999 +0000');
    expect(await state(a)).toEqual(await state(b));
  });

  const changes: [string, (copy: Copy) => void][] = [
    [
      'a patch byte',
      (c) =>
        writeFileSync(
          path.join(c.dotDir, 'patch_generator', '9', '2.patch'),
          `${readFileSync(path.join(c.dotDir, 'patch_generator', '9', '2.patch'), 'utf8')} `,
        ),
    ],
    [
      'a temp file left in a suggestion folder',
      (c) => writeFileSync(path.join(c.dotDir, 'patch_generator', '2', '.3.patch.patch-repair-tmp'), 'half'),
    ],
    ['a backup', (c) => mkdirSync(path.join(c.dotDir, 'patch_repair', 'backups', '9'), { recursive: true })],
    [
      'a .written that does not name the set',
      (c) => {
        mkdirSync(path.join(c.dotDir, 'patch_repair', 'backups'), { recursive: true });
        writeFileSync(path.join(c.dotDir, 'patch_repair', 'backups', '2.written'), `${'0'.repeat(64)}\n`);
      },
    ],
    [
      'a journal entry',
      (c) => {
        mkdirSync(path.join(c.dotDir, 'patch_repair', 'journal'), { recursive: true });
        writeFileSync(path.join(c.dotDir, 'patch_repair', 'journal', '2.json'), '{}');
      },
    ],
    ['a folder left in --work-dir', (c) => mkdirSync(path.join(c.workDir, 'patch-repair-run'))],
    [
      'a source byte',
      (c) =>
        writeFileSync(
          path.join(c.root, 'src', 'dot.c'),
          `${readFileSync(path.join(c.root, 'src', 'dot.c'), 'utf8')}\n`,
        ),
    ],
    ['a mode', (c) => chmodSync(path.join(c.dotDir, 'patch_generator', '2'), 0o555)],
  ];

  it.each(changes)('differs by %s', async (_what, change) => {
    const [a, b] = [recoveredCopy('first'), recoveredCopy('second')];
    change(b);
    try {
      expect(await state(a)).not.toEqual(await state(b));
    } finally {
      chmodSync(path.join(b.dotDir, 'patch_generator', '2'), 0o755);
    }
  });

  it('differs when the .written of the same bytes names another set', async () => {
    const [a, b] = [recoveredCopy('first'), recoveredCopy('second')];
    await repairTwo(a, '2026-12-03 14:00:00.000000000 +0000');
    await repairTwo(b, '2026-12-03 14:00:00.000000000 +0000');
    writeFileSync(
      path.join(b.dotDir, 'patch_repair', 'backups', '2.written'),
      `${discopopDigest(await readSet(path.join(b.dotDir, 'patch_repair', 'backups', '2')))}\n`,
    );
    expect(await state(a)).not.toEqual(await state(b));
  });
});
