// --check-races: a build with clang -fopenmp -fsanitize=thread, run once with execute.sh at
// --run-threads. libomp loads LLVM's Archer (libarcher.so) into a program built with TSan, which
// gives ThreadSanitizer OpenMP's synchronization (reductions, barriers, tasks), so what it reports
// is a race of the program. A report whose stack reaches a line the patch set added or changed
// (the directive itself is the outlined region's frame, `.omp_outlined.` at the pragma's line)
// races in the suggestion's parallel region and rejects the candidate; others are evidence.
import { readdir, readFile, mkdir, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import type { IsolatedBuild, ProgramRun, ProgramRunner } from '../../formats/outcome.js';
import type { RaceCheck, RaceReport } from '../../formats/results.js';
import { leavesRoot } from '../../build/compile.js';
import { parseTsanLog, type Frame, type ParsedAccess, type ParsedRace } from './tsan.js';
import { pass, reject, type CheckOutcome } from './result.js';
import { faultPoint } from '../../fault.js';
import { toTheMillisecond } from '../../formats/statuses.js';

/** TSan's exit code when it reported something; any other non-zero code is the program's own. */
const TSAN_EXIT_CODE = 66;

/** The Debian packages a race build needs, named in the refusal when it cannot be made. */
export const RACE_PACKAGES = 'clang libclang-rt-14-dev libomp-14-dev';

export const RACE_FLAGS = '-fopenmp -fsanitize=thread -g -O1';

export interface RaceCheckSetup {
  /** The suggestions' build settings with clang and RACE_FLAGS. */
  buildSettings: Record<string, string>;
  threads: number;
  timeoutMs: number;
  /** The reference's own races (pair keys): a candidate is not blamed for them. */
  known: ReadonlySet<string>;
}

/** What one race run showed, read while its workspace still exists. */
export interface RaceRun {
  run: ProgramRun;
  /** A log says `Running under ThreadSanitizer`: the program really was built with TSan. */
  instrumented: boolean;
  reports: (RaceReport & { key: string; lines: string[] })[];
}

/** The configuration's settings with the compiler set to clang and the race flags added. */
export function raceSettingsOf(settings: Readonly<Record<string, string>>): Record<string, string> {
  const add = (flags: string | undefined) => (flags && flags.trim().length > 0 ? `${flags} ${RACE_FLAGS}` : RACE_FLAGS);
  return {
    ...settings,
    CC: 'clang',
    CXX: 'clang++',
    CFLAGS: add(settings['CFLAGS']),
    CXXFLAGS: add(settings['CXXFLAGS']),
    ...(settings['LDFLAGS'] !== undefined && { LDFLAGS: `${settings['LDFLAGS']} -fopenmp -fsanitize=thread` }),
  };
}

/** Runs the race build's program once and reads ThreadSanitizer's logs. */
export async function raceRun(
  program: ProgramRunner,
  built: IsolatedBuild,
  o: { threads: number; timeoutMs: number },
): Promise<RaceRun> {
  const logs = join(built.scratch, 'tsan');
  await mkdir(logs, { recursive: true });
  const options = [
    `log_path=${join(logs, 'report')}`,
    'ignore_noninstrumented_modules=1',
    'halt_on_error=0',
    `exitcode=${TSAN_EXIT_CODE}`,
    'verbosity=1',
  ];
  const run = await program.run(o.threads, o.timeoutMs, { TSAN_OPTIONS: options.join(' ') });
  faultPoint('races.after-run');
  const texts = await Promise.all((await readdir(logs)).sort().map((name) => readFile(join(logs, name), 'utf8')));
  const roots = [built.workspaceRoot, await realpath(built.workspaceRoot)];
  const sources = new Map<string, string[] | null>();
  const lineOf = async (rel: string, line: number): Promise<string> => {
    if (!sources.has(rel))
      sources.set(
        rel,
        await readFile(join(built.workspaceRoot, rel), 'utf8').then(
          (t) => t.split('\n'),
          () => null,
        ),
      );
    return sources.get(rel)?.[line - 1] ?? '';
  };
  const reports = [];
  const seen = new Set<string>();
  for (const race of texts.flatMap(parseTsanLog)) {
    const report = await describe(race, roots, built.added, lineOf);
    if (seen.has(report.key)) continue;
    seen.add(report.key);
    reports.push(report);
  }
  return { run, instrumented: texts.some((t) => t.includes('Running under ThreadSanitizer')), reports };
}

/** The record of a race run, and the follow-up text when a report reaches the patch set. */
export function judgeRaces(
  ran: RaceRun,
  s: Pick<RaceCheckSetup, 'threads' | 'known'>,
  seconds: number,
): { record: RaceCheck; reason: string | null } {
  const reports = ran.reports.filter((r) => !s.known.has(r.key));
  const ours = reports.filter((r) => r.in_patch);
  const verdict = ours.length > 0 ? 'races' : reports.length > 0 ? 'races_elsewhere' : 'clean';
  const record: RaceCheck = {
    threads: s.threads,
    verdict,
    reports: reports.map(({ first, previous, variable, in_patch }) => ({ first, previous, variable, in_patch })),
    seconds: toTheMillisecond(seconds),
    detail: runDetail(ran.run),
  };
  if (ours.length === 0) return { record, reason: null };
  const pairs = ours.map((r) => `- ${pairText(r)}\n${r.lines.map((l) => `    ${l}`).join('\n')}`);
  return {
    record,
    reason: `The project builds with the corrected patch set, but ThreadSanitizer (clang -fsanitize=thread with LLVM's Archer, which knows OpenMP's synchronization; execute.sh at ${s.threads} threads) reports ${ours.length === 1 ? 'a data race' : `${ours.length} data races`} in the parallel region the patch set opens:\n${pairs.join('\n')}\nTwo threads access the same memory without synchronization and at least one writes: a variable every iteration writes must be private (or a reduction), an array the threads combine into needs a reduction or atomic updates. Keep every directive and fix its clauses.`,
  };
}

/** The race check's outcome for the verify sequence. */
export function racesOutcome(judged: { record: RaceCheck; reason: string | null }): CheckOutcome<RaceCheck> {
  return judged.reason === null ? pass(judged.record) : reject(judged.reason);
}

/** One racing pair in a sentence: `write of size 8 at src/main.c:11:11 (main) and an earlier write … (variable t)`. */
export function pairText(r: Pick<RaceReport, 'first' | 'previous' | 'variable'>): string {
  const access = (a: RaceReport['first']) =>
    `${a.kind} of size ${a.size} at ${a.location ?? 'an unknown line'}${a.function ? ` (${a.function})` : ''}`;
  return `${access(r.first)} races with the ${access(r.previous)} of another thread${r.variable ? `, variable \`${r.variable}\`` : ''}`;
}

function runDetail(run: ProgramRun): string | null {
  if (run.ending === 'timeout')
    return 'the race run went over its time limit and was stopped; its reports until then are kept';
  if (run.ending === 'signaled') return `the race run was killed by ${run.signal}`;
  if (run.exitCode !== 0 && run.exitCode !== TSAN_EXIT_CODE) return `the race run exits with code ${run.exitCode}`;
  return null;
}

type LineOf = (rel: string, line: number) => Promise<string>;

async function describe(
  race: ParsedRace,
  roots: string[],
  added: IsolatedBuild['added'],
  lineOf: LineOf,
): Promise<RaceReport & { key: string; lines: string[] }> {
  const place = (frame: Frame) => projectPath(frame.file, roots, added);
  const site = (a: ParsedAccess) =>
    a.frames.find((f) => f.line !== null && place(f) !== null) ?? a.frames.find((f) => f.file !== null) ?? null;
  const access = (a: ParsedAccess) => {
    const frame = site(a);
    const rel = frame ? place(frame) : null;
    const location = frame
      ? `${rel ?? frame.file}:${frame.line ?? '?'}${frame.column !== null ? `:${frame.column}` : ''}`
      : null;
    return { kind: a.kind, size: a.size, location, function: frame ? functionOf(frame, a.frames) : null };
  };
  const inPatch = [race.first, race.previous].some((a) =>
    a.frames.some((f) => {
      const rel = place(f);
      return rel !== null && f.line !== null && (added.get(rel)?.has(f.line) ?? false);
    }),
  );
  const first = access(race.first);
  const previous = access(race.previous);
  let variable = race.variable;
  const lines: string[] = [];
  for (const a of [race.first, race.previous]) {
    const frame = site(a);
    const rel = frame && place(frame);
    if (!frame || !rel || frame.line === null) continue;
    const text = await lineOf(rel, frame.line);
    const shown = `${rel}:${frame.line}: ${text.trim()}`;
    if (!lines.includes(shown)) lines.push(shown);
    variable ??= variableAt(text, frame.column);
  }
  const halves = [
    `${first.kind}@${lineOnly(first.location)}`,
    `${previous.kind}@${lineOnly(previous.location)}`,
  ].sort();
  return { first, previous, variable, in_patch: inPatch, key: halves.join('|'), lines };
}

/** A frame's file relative to the workspace root, or null when it is not a file of the project. */
function projectPath(file: string | null, roots: string[], added: IsolatedBuild['added']): string | null {
  if (file === null) return null;
  if (!isAbsolute(file)) return [...added.keys()].find((rel) => rel === file || rel.endsWith(`/${file}`)) ?? file;
  for (const root of roots) {
    const rel = relative(root, file);
    if (!leavesRoot(rel)) return rel;
  }
  return null;
}

const OUTLINED = /^\.omp_(outlined|task_entry)\./;

/**
 * clang names an outlined parallel region `.omp_outlined._debug__`; the user knows the function
 * holding it, the first frame below it that is the program's own.
 */
function functionOf(frame: Frame, frames: readonly Frame[]): string {
  if (!OUTLINED.test(frame.function)) return frame.function;
  const holder = frames.slice(frames.indexOf(frame)).find((f) => !OUTLINED.test(f.function) && f.file !== null);
  return holder ? `${holder.function}, parallel region` : 'parallel region';
}

function lineOnly(location: string | null): string {
  return location === null ? '?' : location.replace(/:\d+$/, '').replace(/^(.*:\d+):\d+$/, '$1');
}

/**
 * The variable an access at `column` of `text` touches, where TSan does not name it (a stack
 * slot): the identifier at the column, else the one just before it (`sum +=`, `a[i] =`).
 */
export function variableAt(text: string, column: number | null): string | null {
  if (column === null || column < 1) return null;
  const at = column - 1;
  const word = /[A-Za-z_]\w*/y;
  const start = (() => {
    let i = at;
    while (i > 0 && /\w/.test(text[i - 1]!) && /\w/.test(text[i]!)) i--;
    return i;
  })();
  word.lastIndex = start;
  const here = /[A-Za-z_]/.test(text[start] ?? '') ? word.exec(text) : null;
  if (here) return here[0];
  let i = at - 1;
  while (i >= 0 && /\s/.test(text[i]!)) i--;
  if (text[i] === ']') {
    let depth = 0;
    for (; i >= 0; i--) {
      if (text[i] === ']') depth++;
      else if (text[i] === '[' && --depth === 0) break;
    }
    i--;
  }
  const end = i + 1;
  while (i >= 0 && /\w/.test(text[i]!)) i--;
  const name = text.slice(i + 1, end);
  return /^[A-Za-z_]\w*$/.test(name) ? name : null;
}
