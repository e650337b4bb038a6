// Hostile file systems, as a user meets them: files that cannot be read, folders where files should
// be, a .discopop or patch_generator/ that cannot be written (permissions, or a read-only mount),
// before the run or in the middle of it. Each must end in one line per problem naming the path in
// words (exit 2 for bad input, 3 for a refusal), never "internal error", and after every case:
//   - the project's sources and patch_generator/ are byte-identical to before, or hold a complete
//     verified repair with its backup;
//   - no lock, journal entry or scratch folder is left;
//   - the next run exits as it should.
// We run as root in CI, where permissions mean nothing: permission cases run the CLI as nobody
// (setpriv), read-only mounts use a private mount namespace (unshare -m). Either is skipped with a
// message where the machine does not allow it.
// The cases run concurrently, each on its own copy of the demo with a --work-dir of its own.
import type { RunResults } from '../../src/formats/results.js';
import { resultsOf } from '../../src/formats/results-document.js';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { runProcess, type RunOutcome } from '../../src/process.js';
import { useFixture, type FixtureCopy } from '../helpers/fixture.js';
import { changedPaths, snapshotTree, type EntrySnapshot } from '../helpers/tree-snapshot.js';

const CLI = path.resolve('dist/cli.js');
const NOBODY = 65534;
/** Progress lines go to stderr; a stack trace or a Node warning there would be a bug. */
const NODE_TROUBLE = /^\s+at |Warning:|^(?:Type|Range|Reference)?Error:/m;
const isRoot = process.getuid?.() === 0;

async function probe(command: string, args: string[]): Promise<boolean> {
  const outcome = await runProcess({ command, args, cwd: tmpdir(), timeoutMs: 10_000 });
  return outcome.kind === 'exited' && outcome.exitCode === 0;
}

/** As root we switch to nobody; any other user is already unprivileged. */
const canDropPrivileges =
  !isRoot || (await probe('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'true']));
const canMountReadOnly =
  isRoot && (await probe('unshare', ['-m', 'sh', '-c', 'mount --make-rprivate / && mount -t tmpfs none /mnt']));
if (!canDropPrivileges)
  console.warn(
    'hostile-fs: permission cases skipped: cannot run the CLI as an unprivileged user here (setpriv failed)',
  );
if (!canMountReadOnly)
  console.warn('hostile-fs: read-only mount cases skipped: unshare -m with mount is not permitted here');

interface Case extends FixtureCopy {
  work: string;
  before: Map<string, EntrySnapshot>;
}

/** A demo copy owned by the user the CLI will run as, with a --work-dir of its own; `test` removes both. */
function prepare(test: TestContext): Case {
  const copy = useFixture('demo', test);
  const work = mkdtempSync(path.join(tmpdir(), 'pr-hostile-work-'));
  test.onTestFinished(() => rmSync(work, { recursive: true, force: true }));
  if (isRoot) for (const dir of [path.dirname(copy.root), work]) chownTree(dir, NOBODY);
  return { ...copy, work, before: snapshot(copy.root) };
}

function chownTree(dir: string, uid: number): void {
  chownSync(dir, uid, uid);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) chownTree(full, uid);
    else chownSync(full, uid, uid);
  }
}

function snapshot(root: string): Map<string, EntrySnapshot> {
  return snapshotTree(root, (rel) => rel === path.join('.discopop', 'patch_repair'));
}

function cliArgs(c: Case, args: string[]): string[] {
  return [CLI, '--dot-dp-path', c.dotDir, '--backend', 'builtin', '-j', '1', '--work-dir', c.work, ...args];
}

function asUnprivileged(c: Case, args: string[]): Promise<RunOutcome> {
  const argv = cliArgs(c, args);
  return isRoot
    ? runProcess({
        command: 'setpriv',
        args: ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, ...argv],
        cwd: tmpdir(),
        timeoutMs: 180_000,
      })
    : runProcess({ command: process.execPath, args: argv, cwd: tmpdir(), timeoutMs: 180_000 });
}

/** Runs the CLI in a private mount namespace after `mounts` (shell lines; $D is the .discopop). */
function withMounts(c: Case, mounts: string[], args: string[]): Promise<RunOutcome> {
  const script = ['set -e', 'mount --make-rprivate /', ...mounts, 'exec "$@"'].join('\n');
  return runProcess({
    command: 'unshare',
    args: ['-m', 'sh', '-c', script, 'sh', process.execPath, ...cliArgs(c, args)],
    env: { D: c.dotDir },
    cwd: tmpdir(),
    timeoutMs: 180_000,
  });
}

function exited(outcome: RunOutcome): { exitCode: number; stderr: string; stdout: string } {
  if (outcome.kind !== 'exited') throw new Error(`the CLI did not exit normally: ${JSON.stringify(outcome)}`);
  return outcome;
}

/** stderr is exactly these lines, each "patch-repair: <line>". */
function expectErrorLines(outcome: RunOutcome, exitCode: number, lines: (string | RegExp)[]): void {
  const run = exited(outcome);
  expect(run.stderr).not.toMatch(/internal error|\n\s+at /);
  const got = run.stderr.trimEnd().split('\n');
  expect(got, run.stderr).toHaveLength(lines.length);
  lines.forEach((line, i) => {
    if (typeof line === 'string') expect(got[i]).toBe(`patch-repair: ${line}`);
    else expect(got[i]).toMatch(line);
  });
  expect(run.exitCode, run.stderr).toBe(exitCode);
}

function results(c: Case): RunResults {
  return resultsOf(JSON.parse(readFileSync(path.join(c.dotDir, 'patch_repair', 'results.json'), 'utf8')));
}

/**
 * The invariants after any case: the tree is as before except suggestion folders listed in
 * `repaired`, which must hold a complete repair with a backup of the generated set; nothing left.
 */
function expectNothingLost(c: Case, repaired: string[] = []): void {
  const after = snapshot(c.root);
  const changed = changedPaths(c.before, after);
  const allowed = (rel: string) =>
    repaired.some((id) => rel.startsWith(path.join('.discopop', 'patch_generator', id) + path.sep));
  expect(
    changed.filter((rel) => !allowed(rel)),
    'changed outside a repaired suggestion',
  ).toEqual([]);
  for (const id of repaired) {
    const backup = path.join(c.dotDir, 'patch_repair', 'backups', id);
    for (const rel of changed) {
      expect(readFileSync(path.join(backup, path.basename(rel))), `backup of ${rel}`).toEqual(
        readFileSync(path.join(path.dirname(c.root), 'generated', id, path.basename(rel))),
      );
    }
  }
  const repairDir = path.join(c.dotDir, 'patch_repair');
  expect(existsSync(path.join(repairDir, 'run.lock')), 'lock left').toBe(false);
  const journal = path.join(repairDir, 'journal');
  expect(existsSync(journal) ? readdirSync(journal) : [], 'journal entries left').toEqual([]);
  const backups = path.join(repairDir, 'backups');
  expect(
    (existsSync(backups) ? readdirSync(backups) : []).filter(
      (n) => !repaired.some((id) => n === id || n === `${id}.written`),
    ),
    'backups left',
  ).toEqual([]);
  expect(readdirSync(c.work), 'scratch folder left').toEqual([]);
  const scratch = path.join(repairDir, 'scratch.json');
  if (existsSync(scratch)) expect(JSON.parse(readFileSync(scratch, 'utf8')).runs).toEqual([]);
}

/** Keeps the generated patch sets aside, to compare backups with. */
function keepGenerated(c: Case): void {
  const target = path.join(path.dirname(c.root), 'generated');
  for (const id of readdirSync(path.join(c.dotDir, 'patch_generator'))) {
    mkdirSync(path.join(target, id), { recursive: true });
    for (const name of readdirSync(path.join(c.dotDir, 'patch_generator', id))) {
      writeFileSync(path.join(target, id, name), readFileSync(path.join(c.dotDir, 'patch_generator', id, name)));
    }
  }
}

describe.runIf(canDropPrivileges).concurrent('files that cannot be read', () => {
  it('an unreadable FileMapping.txt: one line, exit 2; readable again, the run works', async (test) => {
    const c = prepare(test);
    const file = path.join(c.dotDir, 'FileMapping.txt');
    chmodSync(file, 0o000);
    expectErrorLines(await asUnprivileged(c, ['-s', '2']), 2, [`${file}: cannot read: permission denied`]);
    expectNothingLost(c);
    chmodSync(file, 0o644);
    expect(exited(await asUnprivileged(c, ['-s', '7'])).exitCode).toBe(0);
  });

  it('an unreadable .patch file and an unreadable source: one line each, exit 2', async (test) => {
    const c = prepare(test);
    const patch = path.join(c.dotDir, 'patch_generator', '2', '3.patch');
    const source = path.join(c.root, 'src', 'histogram.c');
    chmodSync(patch, 0o000);
    chmodSync(source, 0o000);
    expectErrorLines(await asUnprivileged(c, ['-s', '2']), 2, [
      `${patch}: cannot read: permission denied`,
      `${source}: cannot read: permission denied`,
    ]);
    expectNothingLost(c);
  });

  it('a --work-dir that cannot be written: one line naming it, exit 2, before anything is moved to history', async (test) => {
    const c = prepare(test);
    const work = mkdtempSync(path.join(tmpdir(), 'pr-hostile-rootonly-'));
    test.onTestFinished(() => rmSync(work, { recursive: true, force: true }));
    chmodSync(work, 0o755);
    if (!isRoot) chmodSync(work, 0o555);
    expectErrorLines(await asUnprivileged({ ...c, work }, ['-s', '2', '--discover-only']), 2, [
      `${work}: --work-dir: cannot create the run's scratch folder there: permission denied`,
    ]);
    expect(existsSync(path.join(c.dotDir, 'patch_repair', 'history'))).toBe(false);
    expectNothingLost(c);
  });

  it.for(['--dry-run', '--discover-only', '--restore'])(
    'a .discopop that cannot be written is refused with exit 3 (%s)',
    async (mode, test) => {
      const c = prepare(test);
      chmodSync(c.dotDir, 0o555);
      test.onTestFinished(() => chmodSync(c.dotDir, 0o755));
      expectErrorLines(await asUnprivileged(c, ['-s', '2', mode]), 3, [
        `${c.dotDir}: cannot create patch_repair/ (where results, progress and backups go): permission denied`,
      ]);
      expect(existsSync(path.join(c.dotDir, 'patch_repair'))).toBe(false);
      expectNothingLost(c);
      chmodSync(c.dotDir, 0o755);
      expect(exited(await asUnprivileged(c, ['-s', '2', '--discover-only'])).exitCode).toBe(1);
    },
  );
});

describe.concurrent('folders where files should be', () => {
  it.for([
    ['explorer', 'patterns.json'],
    ['hotspot_detection', 'Hotspots.json'],
  ] as const)('%s/%s as a folder: one line naming it, exit 2', async ([folder, name], test) => {
    const c = prepare(test);
    const file = path.join(c.dotDir, folder, name);
    renameSync(file, `${file}.kept`);
    mkdirSync(file);
    c.before = snapshot(c.root);
    expectErrorLines(
      await runProcess({ command: process.execPath, args: cliArgs(c, ['-s', '2']), cwd: tmpdir(), timeoutMs: 180_000 }),
      2,
      [`${file}: is a folder, expected a file`],
    );
    expectNothingLost(c);
  });
});

describe.runIf(canDropPrivileges).concurrent('a write-back that cannot write (permissions)', () => {
  it('patch_generator/<id>/ not writable before the run: a repair run is refused with exit 3, --dry-run still works', async (test) => {
    const c = prepare(test);
    for (const id of ['2', '9']) chmodSync(path.join(c.dotDir, 'patch_generator', id), 0o555);
    const refused = await asUnprivileged(c, ['-s', '2,9']);
    expectErrorLines(refused, 3, [
      `${path.join(c.dotDir, 'patch_generator', '2')}: cannot write: permission denied`,
      `${path.join(c.dotDir, 'patch_generator', '9')}: cannot write: permission denied`,
      /--dry-run$/,
    ]);
    expectNothingLost(c);
    const dry = exited(await asUnprivileged(c, ['-s', '2,9', '--dry-run']));
    expect(dry.exitCode).toBe(0);
    expect(results(c).suggestions.map((s) => [s.status, s.written])).toEqual([
      ['repaired', false],
      ['repaired', false],
    ]);
    expectNothingLost(c);
  });

  it('a folder that becomes unwritable mid-run: undone at once, recorded with its reason, the run goes on', async (test) => {
    const c = prepare(test);
    keepGenerated(c);
    const folder = path.join(c.dotDir, 'patch_generator', '2');
    // The project's own build takes the write permission away after preflight has checked it.
    const script = path.join(c.dotDir, 'project', 'configs', 'tiny', 'compile.sh');
    writeFileSync(script, readFileSync(script, 'utf8').replace('\n', `\nchmod a-w '${folder}'\n`));
    c.before = snapshot(c.root);
    // One repair at a time, so suggestion 2's write-back fails while 9 is still to come.
    const run = exited(await asUnprivileged(c, ['-s', '2,9', '--agent-jobs', '1']));
    expect(run.stderr).not.toMatch(NODE_TROUBLE);
    expect(run.exitCode).toBe(1);
    const { suggestions, run: record } = results(c);
    expect(record.exit_code).toBe(1);
    expect(suggestions.map((s) => [s.id, s.status, s.reason_code, s.written])).toEqual([
      ['2', 'failed', 'write-failed', false],
      ['9', 'repaired', null, true],
    ]);
    expect(suggestions[0]!.reason).toBe(
      `verified repair not written: ${folder}: cannot write: permission denied; patch_generator/2/ is unchanged, the repair is in attempts/2/1/canonical/`,
    );
    expect(existsSync(path.join(c.dotDir, 'patch_repair', 'attempts', '2', '1', 'canonical', '3.patch'))).toBe(true);
    expect(run.stderr).toContain('the run goes on with the other suggestions');
    expectNothingLost(c, ['9']);

    // Writable again, the next run neither "undoes an interrupted write-back" nor fails.
    chmodSync(folder, 0o755);
    writeFileSync(script, readFileSync(script, 'utf8').replace(`chmod a-w '${folder}'\n`, ''));
    const next = exited(await asUnprivileged(c, ['-s', '2,9']));
    expect(next.stderr).not.toContain('interrupted');
    expect(next.exitCode).toBe(0);
    expect(results(c).suggestions.map((s) => s.status)).toEqual(['repaired', 'ok']);
  });
});

describe.runIf(canMountReadOnly).concurrent('read-only mounts', () => {
  it('a read-only .discopop is refused with exit 3 and called read-only, for every mode', async (test) => {
    const c = prepare(test);
    for (const mode of ['--dry-run', '--discover-only', '--restore']) {
      expectErrorLines(await withMounts(c, ['mount --bind -o ro "$D" "$D"'], ['-s', '2', mode]), 3, [
        `${c.dotDir}: cannot create patch_repair/ (where results, progress and backups go): read-only file system`,
      ]);
    }
    expectNothingLost(c);
    // With patch_repair/ already there the refusal names it the same way.
    expect(exited(await withMounts(c, [], ['-s', '7', '--discover-only'])).exitCode).toBe(0);
    c.before = snapshot(c.root);
    expectErrorLines(await withMounts(c, ['mount --bind -o ro "$D" "$D"'], ['-s', '2', '--dry-run']), 3, [
      `${c.dotDir}: cannot write to patch_repair/ (where results, progress and backups go): read-only file system`,
    ]);
    expectNothingLost(c);
  });

  it('a read-only patch_generator/: a repair run is refused with exit 3, --dry-run repairs without writing', async (test) => {
    const c = prepare(test);
    const ro = ['mount --bind -o ro "$D/patch_generator" "$D/patch_generator"'];
    expectErrorLines(await withMounts(c, ro, ['-s', '2']), 3, [
      `${path.join(c.dotDir, 'patch_generator', '2')}: cannot write: read-only file system`,
      /--dry-run$/,
    ]);
    expect(exited(await withMounts(c, ro, ['-s', '2', '--dry-run'])).exitCode).toBe(0);
    expectNothingLost(c);
  });

  it('--restore into a read-only patch_generator/ is refused with exit 3 before it puts anything back', async (test) => {
    const c = prepare(test);
    keepGenerated(c);
    expect(
      exited(
        await runProcess({
          command: process.execPath,
          args: cliArgs(c, ['-s', '2']),
          cwd: tmpdir(),
          timeoutMs: 180_000,
        }),
      ).exitCode,
    ).toBe(0);
    c.before = snapshot(c.root);
    const ro = ['mount --bind -o ro "$D/patch_generator" "$D/patch_generator"'];
    expectErrorLines(await withMounts(c, ro, ['--restore']), 3, [
      `${path.join(c.dotDir, 'patch_generator', '2')}: cannot write: read-only file system`,
      /run --restore again$/,
    ]);
    expectNothingLost(c, ['2']);
    const restored = exited(
      await runProcess({
        command: process.execPath,
        args: [CLI, '--dot-dp-path', c.dotDir, '--restore'],
        cwd: tmpdir(),
        timeoutMs: 180_000,
      }),
    );
    expect(restored.exitCode).toBe(0);
    expect(readFileSync(path.join(c.dotDir, 'patch_generator', '2', '3.patch'))).toEqual(
      readFileSync(path.join(path.dirname(c.root), 'generated', '2', '3.patch')),
    );
  });

  it('patch_generator/ remounted read-only mid-run: the write-back is undone, the run stops repairing and records why', async (test) => {
    const c = prepare(test);
    const script = path.join(c.dotDir, 'project', 'configs', 'tiny', 'compile.sh');
    writeFileSync(
      script,
      readFileSync(script, 'utf8').replace(
        '\n',
        `\nmount -o remount,bind,ro '${path.join(c.dotDir, 'patch_generator')}'\n`,
      ),
    );
    c.before = snapshot(c.root);
    const run = exited(
      await withMounts(c, ['mount --bind "$D/patch_generator" "$D/patch_generator"'], ['-s', '2,3,9']),
    );
    expect(run.stderr).not.toMatch(NODE_TROUBLE);
    expect(run.exitCode).toBe(1);
    const { suggestions } = results(c);
    expect(suggestions.map((s) => s.id)).toEqual(['2', '3', '9']);
    // Repairs run concurrently: the first to finish meets the read-only folder; the others were
    // still in flight (verified, not written) or never started (skipped), and each says why.
    const [first, ...rest] = suggestions.filter((s) =>
      s.reason?.startsWith(
        `verified repair not written: ${path.join(c.dotDir, 'patch_generator', s.id)}: cannot write`,
      ),
    );
    expect(rest).toEqual([]);
    expect(first!.status).toBe('failed');
    expect(first!.reason).toContain(
      `${path.join(c.dotDir, 'patch_generator', first!.id)}: cannot write: read-only file system`,
    );
    const stopped = `the write-back of suggestion ${first!.id} failed \\(.*read-only file system\\)`;
    for (const s of suggestions.filter((other) => other !== first)) {
      if (s.status === 'skipped') expect(s.reason).toMatch(new RegExp(`^not repaired: ${stopped}$`));
      else {
        expect(s.status).toBe('failed');
        expect(s.reason).toMatch(
          new RegExp(
            `^verified repair not written: ${stopped}, and every later write-back would fail the same way; the repair is in attempts/${s.id}/\\d+/canonical/$`,
          ),
        );
      }
    }
    expect(run.stderr).toContain('the run stops repairing');
    expectNothingLost(c);

    writeFileSync(script, readFileSync(script, 'utf8').replace(/^mount -o remount.*\n/m, ''));
    const next = exited(
      await runProcess({
        command: process.execPath,
        args: cliArgs(c, ['-s', '2,3,9']),
        cwd: tmpdir(),
        timeoutMs: 180_000,
      }),
    );
    expect(next.stderr).not.toContain('interrupted');
    expect(next.exitCode).toBe(0);
  });
});
