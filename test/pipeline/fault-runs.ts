// What the fault-injection files share (test/pipeline/fault-injection-*.test.ts): the built CLI run
// on a copy of the demo, logging into its project root as users do; patch sets compared without the
// copy's root and diff's times; the paused run, whose copies of the tree at each point stand for a
// SIGKILL there; and the stage-boundary case, which kills a run at one point (or takes that copy)
// and checks what the next start finds.
import { resultsOf } from '../../src/formats/results-document.js';
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { runProcess, type RunOutcome } from '../../src/process.js';
import { readWrittenDigest, writtenNames } from '../../src/store/backup.js';
import { readSet } from '../../src/store/patch-set-files.js';
import { instantiateFixture } from '../../scripts/instantiate-fixture.mjs';

export const CLI = path.resolve('dist/cli.js');
/** Suggestion 2 repairs one file; 9 is a set of two files of which one is repaired. */
export const SELECTED = ['2', '9'];

export interface KillPoint {
  point: string;
  signal: 'SIGKILL' | 'SIGINT' | 'SIGTERM';
}

let logs = 0;

/**
 * One run as users start long jobs: from the project root, its stdout and stderr logged into a
 * file there (`patch-repair … > patch-repair-<n>.log 2>&1`, a new file each run), which --resume
 * must not take for a change of the project. The log's text stands for both streams. Every run of
 * the fault-injection files goes through here.
 */
export async function cli(dotDir: string, args: string[], env: Record<string, string> = {}): Promise<RunOutcome> {
  const root = path.dirname(dotDir);
  const log = path.join(root, `patch-repair-${++logs}.log`);
  const outcome = await runProcess({
    command: 'sh',
    args: [
      '-c',
      'log=$1; shift; exec "$@" > "$log" 2>&1',
      'sh',
      log,
      process.execPath,
      CLI,
      '--dot-dp-path',
      dotDir,
      ...args,
    ],
    cwd: root,
    env,
    timeoutMs: 180_000,
  });
  const text = existsSync(log) ? readFileSync(log, 'utf8') : '';
  return outcome.kind === 'exited' ? { ...outcome, stdout: text, stderr: text } : outcome;
}

/** A patch set with the project root and diff's timestamps taken out, so copies compare. */
export function normalizedSet(dir: string, root: string): Record<string, string> {
  if (!existsSync(dir)) return {};
  return Object.fromEntries(
    readdirSync(dir)
      .filter((name) => name.endsWith('.patch'))
      .map((name) => [
        name,
        readFileSync(path.join(dir, name), 'utf8')
          .replaceAll(root, '<root>')
          .replace(/^(---|\+\+\+) (\S+)\t.*$/gm, '$1 $2'),
      ]),
  );
}

export interface SelectedStates {
  generated: Record<string, Record<string, string>>;
  repaired: Record<string, Record<string, string>>;
}

/**
 * Everything a fresh start (no --resume) reads of a recovered project, as one comparable text: every
 * entry below the project root and --work-dir (kind, mode, bytes), with the copy's paths and diff's
 * header times taken out and each `backups/<id>.written` reduced to whether it names the set now in
 * patch_generator/<id>/ (its bytes hold the repair's header times). Left out, because a fresh start
 * only moves them to history/ (src/store/history.ts; their run id names the folder): results.json,
 * progress.jsonl, run-state.json and attempts/; also the runs' own logs in the project root and the
 * lock's holder, a dead run in every case. Two recovered projects with the same start state are the
 * same input to the next run.
 */
export async function startState(root: string, workDir: string): Promise<string> {
  const dotDir = path.join(root, '.discopop');
  const rotated = new Set(
    ['results.json', 'progress.jsonl', 'run-state.json', 'attempts'].map((name) =>
      path.join('.discopop', 'patch_repair', name),
    ),
  );
  const lines: string[] = [];
  const walk = async (base: string, label: string, dir: string): Promise<void> => {
    for (const name of readdirSync(dir).sort()) {
      const abs = path.join(dir, name);
      const rel = path.relative(base, abs);
      if (rotated.has(rel) || (dir === root && /^patch-repair-\d+\.log$/.test(name))) continue;
      const stat = lstatSync(abs);
      const entry = `${label}/${rel} ${(stat.mode & 0o7777).toString(8)}`;
      if (stat.isDirectory()) {
        lines.push(`${entry} dir`);
        await walk(base, label, abs);
      } else if (stat.isSymbolicLink()) lines.push(`${entry} -> ${readlinkSync(abs)}`);
      else if (rel === path.join('.discopop', 'patch_repair', 'run.lock')) lines.push(`${entry} lock`);
      else if (/^\.discopop\/patch_repair\/backups\/[^/]+\.written$/.test(rel)) {
        const id = path.basename(name, '.written');
        const names = writtenNames(
          await readWrittenDigest(dotDir, id),
          await readSet(path.join(dotDir, 'patch_generator', id)),
        );
        lines.push(
          `${entry} ${names ? `names patch_generator/${id}` : createHash('sha256').update(readFileSync(abs)).digest('hex')}`,
        );
      } else
        lines.push(
          `${entry} ${createHash('sha256')
            .update(normalized(readFileSync(abs, 'utf8'), root, workDir))
            .digest('hex')}`,
        );
    }
  };
  await walk(root, '<root>', root);
  await walk(workDir, '<work>', workDir);
  return lines.join('\n');
}

function normalized(text: string, root: string, workDir: string): string {
  return text
    .replaceAll(root, '<root>')
    .replaceAll(workDir, '<work>')
    .replace(/^(---|\+\+\+) (\S+)\t.*$/gm, '$1 $2');
}

/**
 * The proof that a fresh run completes from a recovered state, once per start state in a file:
 * the first case that recovers to a state runs it on its own copy, every later case with the same
 * state (startState) awaits that run, which is the one its own copy would get.
 */
const nextRunProofs = new Map<string, Promise<void>>();

/**
 * A run killed at `point`: once the next start's recovery is over every patch set is the generated
 * one or the complete repair (with a backup when it differs), the next run completes and leaves no
 * scratch, temp or journal file, and --restore gives back every generated byte.
 */
export async function expectKillSurvived({ point, signal }: KillPoint, states: SelectedStates): Promise<void> {
  const { root, dotDir } = instantiateFixture('demo');
  const workDir = mkdtempSync(path.join(tmpdir(), 'pr-fault-work-'));
  try {
    const killed = await cli(dotDir, selectionArgs(workDir), { PATCH_REPAIR_FAULT: `${point}:${signal}` });
    if (signal === 'SIGKILL')
      expect(killed, `${point} was never reached`).toMatchObject({ kind: 'signaled', signal: 'SIGKILL' });
    else {
      const exitCode = signal === 'SIGINT' ? 130 : 143;
      expect(killed).toMatchObject({ kind: 'exited', exitCode });
      // A graceful stop still records how far it got: one record per selected suggestion.
      const results = resultsOf(JSON.parse(readFileSync(path.join(dotDir, 'patch_repair', 'results.json'), 'utf8')));
      expect(results.run.exit_code).toBe(exitCode);
      expect(results.suggestions.map((s: { id: string }) => s.id)).toEqual(SELECTED);
    }
    await expectRecovered({ root, dotDir, workDir, point }, states);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
    rmSync(path.dirname(root), { recursive: true, force: true });
  }
}

function selectionArgs(workDir: string): string[] {
  return ['--backend', 'builtin', '-j', '1', '-s', SELECTED.join(','), '--work-dir', workDir];
}

export interface PausedRun {
  /** The uninterrupted run's patch sets: it is one, only stopped at each point for a while. */
  states: SelectedStates;
  /** The case of a kill at `point` (`<point>[@<n>]`), from the copy taken there; cases of one paused run go one after another. */
  expectSurvived(point: string): Promise<void>;
}

/** The stage-boundary cases of `points` from one paused run of the selection (pausedCopies), which is also the uninterrupted run. */
export function pausedRun(points: readonly string[]): PausedRun {
  const states: SelectedStates = { generated: {}, repaired: {} };
  const copies = pausedCopies({
    points,
    args: selectionArgs,
    prepare: ({ root, dotDir }) => {
      states.generated = Object.fromEntries(
        SELECTED.map((id) => [id, normalizedSet(path.join(dotDir, 'patch_generator', id), root)]),
      );
    },
    ended: ({ root, dotDir }, run) => {
      expect(run, run.kind === 'exited' ? run.stdout : '').toMatchObject({ kind: 'exited', exitCode: 0 });
      states.repaired = Object.fromEntries(
        SELECTED.map((id) => [id, normalizedSet(path.join(dotDir, 'patch_generator', id), root)]),
      );
      for (const id of SELECTED) expect(states.repaired[id]).not.toEqual(states.generated[id]);
    },
  });
  return {
    states,
    async expectSurvived(point) {
      await expectRecovered({ ...(await copies.putBack(point)), point }, states);
    },
  };
}

export interface PausedCopy {
  root: string;
  dotDir: string;
  workDir: string;
}

/**
 * One run of the demo in pause mode (PATCH_REPAIR_FAULT=pause:<file>, src/fault.ts), in the file's
 * beforeAll: at each of `points` the run stops itself, and the test copies the project and
 * --work-dir, the bytes a SIGKILL right there leaves (a stopped process writes nothing more; what a
 * kill leaves running only ever writes into the scratch folder, which the next start removes), then
 * lets it go on. `ended` sees the finished run, before any copy is put back. putBack(point) puts a
 * copy back at the run's own paths, so every path the run recorded (scratch record, lock, journal,
 * patch headers) stays true, for a case to go on as after a real kill; the paused run has ended by
 * then, as a killed run's next start finds its pid gone. Cases of one paused run share those paths:
 * they go one after another.
 */
export function pausedCopies(o: {
  points: readonly string[];
  args: (workDir: string) => string[];
  prepare?: (copy: PausedCopy) => void;
  ended: (copy: PausedCopy, run: RunOutcome) => void | Promise<void>;
}): { putBack(point: string): Promise<PausedCopy> } {
  let copy: (PausedCopy & { copies: string }) | undefined;
  const copied = new Set<string>();
  beforeAll(async () => {
    const { root, dotDir } = instantiateFixture('demo');
    copy = {
      root,
      dotDir,
      workDir: mkdtempSync(path.join(tmpdir(), 'pr-fault-work-')),
      copies: mkdtempSync(path.join(tmpdir(), 'pr-fault-paused-')),
    };
    const { workDir, copies } = copy;
    o.prepare?.(copy);
    const pauses = path.join(copies, 'pauses');
    writeFileSync(pauses, '');
    let ended = false;
    const running = cli(dotDir, o.args(workDir), { PATCH_REPAIR_FAULT: `pause:${pauses}` }).finally(
      () => (ended = true),
    );
    let handled = 0;
    while (!ended) {
      const lines = readFileSync(pauses, 'utf8').split('\n').slice(0, -1);
      for (const line of lines.slice(handled)) {
        const [at, pid] = line.split(' ') as [string, string];
        await untilStopped(Number(pid));
        if (o.points.some((point) => occurrenceOf(point) === at)) {
          mkdirSync(path.join(copies, at));
          for (const [from, to] of [
            [root, 'root'],
            [workDir, 'work'],
          ] as const)
            await copyTree(from, path.join(copies, at, to));
          copied.add(at);
        }
        process.kill(Number(pid), 'SIGCONT');
      }
      handled = lines.length;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await o.ended(copy, await running);
  });
  afterAll(() => {
    if (!copy) return;
    for (const dir of [path.dirname(copy.root), copy.workDir, copy.copies])
      rmSync(dir, { recursive: true, force: true });
  });
  return {
    async putBack(point) {
      const { root, dotDir, workDir, copies } = copy!;
      const at = occurrenceOf(point);
      expect(copied.has(at), `${point} was never reached`).toBe(true);
      for (const [to, from] of [
        [root, 'root'],
        [workDir, 'work'],
      ] as const) {
        rmSync(to, { recursive: true, force: true });
        await copyTree(path.join(copies, at, from), to);
      }
      return { root, dotDir, workDir };
    },
  };
}

/** `cp -a`: modes, links and nanosecond times kept, since --resume takes a changed time for a changed project. */
async function copyTree(from: string, to: string): Promise<void> {
  const copied = await runProcess({ command: 'cp', args: ['-a', from, to], cwd: tmpdir(), timeoutMs: 60_000 });
  expect(copied, `cp -a ${from} ${to}`).toMatchObject({ kind: 'exited', exitCode: 0 });
}

/** A point as the run counts it: `build.after-patch` is its first occurrence, `build.after-patch@1`. */
function occurrenceOf(point: string): string {
  return point.includes('@') ? point : `${point}@1`;
}

/** Waits until `pid` is stopped (state T in /proc), so that what the test copies is all it wrote. */
async function untilStopped(pid: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('T')) return;
    if (Date.now() > deadline) throw new Error(`pid ${pid} announced a pause but never stopped`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * The next start after a kill: its recovery leaves every patch set generated or completely repaired
 * (with a backup when it differs); then a full run completes and --restore gives back every byte
 * (expectNextRunCompletes), once per start state: a kill that recovers to the state of an earlier
 * case's is proven by that case's runs (nextRunProofs).
 */
async function expectRecovered(
  o: { root: string; dotDir: string; workDir: string; point: string },
  states: SelectedStates,
): Promise<void> {
  const { root, dotDir, workDir, point } = o;
  const { generated, repaired } = states;
  // The next start completes or undoes whatever the killed run left half-done before it does
  // anything else: the invariant must hold the moment its recovery is over.
  const recovery = await cli(dotDir, ['--backend', 'builtin', '--work-dir', workDir], {
    PATCH_REPAIR_FAULT: 'pipeline.after-recovery',
  });
  expect(recovery, 'the next start never finished its recovery').toMatchObject({ kind: 'signaled', signal: 'SIGKILL' });
  for (const id of SELECTED) {
    const now = normalizedSet(path.join(dotDir, 'patch_generator', id), root);
    expect([generated[id], repaired[id]], `suggestion ${id} after ${point}`).toContainEqual(now);
    if (JSON.stringify(now) !== JSON.stringify(generated[id])) {
      expect(normalizedSet(path.join(dotDir, 'patch_repair', 'backups', id), root), `backup of ${id}`).toEqual(
        generated[id],
      );
    }
  }

  const state = await startState(root, workDir);
  let proof = nextRunProofs.get(state);
  if (!proof) {
    proof = expectNextRunCompletes({ root, dotDir, workDir, args: selectionArgs(workDir) }, states);
    nextRunProofs.set(state, proof);
  }
  await proof;
}

/** From a recovered copy: a full run completes with every set repaired and nothing left over, and --restore gives back every generated byte. */
async function expectNextRunCompletes(
  o: { root: string; dotDir: string; workDir: string; args: string[] },
  { generated, repaired }: SelectedStates,
): Promise<void> {
  const { root, dotDir, workDir } = o;
  const next = await cli(dotDir, o.args);
  expect(next, next.kind === 'exited' ? next.stdout : '').toMatchObject({ kind: 'exited', exitCode: 0 });
  for (const id of SELECTED)
    expect(normalizedSet(path.join(dotDir, 'patch_generator', id), root)).toEqual(repaired[id]);
  expect(readdirSync(workDir), 'scratch folders left in --work-dir').toEqual([]);
  for (const id of SELECTED)
    expect(readdirSync(path.join(dotDir, 'patch_generator', id)).filter((name) => !name.endsWith('.patch'))).toEqual(
      [],
    );
  expect(
    existsSync(path.join(dotDir, 'patch_repair', 'journal'))
      ? readdirSync(path.join(dotDir, 'patch_repair', 'journal'))
      : [],
  ).toEqual([]);

  const restore = await cli(dotDir, ['--restore']);
  expect(restore, restore.kind === 'exited' ? restore.stdout + restore.stderr : '').toMatchObject({
    kind: 'exited',
    exitCode: 0,
  });
  for (const id of SELECTED)
    expect(normalizedSet(path.join(dotDir, 'patch_generator', id), root)).toEqual(generated[id]);
}
