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
import { findExecutable } from '../../process.js';
import { racePackages, type RaceCompiler } from './race-compiler.js';
import { machine } from 'node:os';
import { toTheMillisecond } from '../../formats/statuses.js';

/** TSan's exit code when it reported something; any other non-zero code is the program's own. */
const TSAN_EXIT_CODE = 66;

export const RACE_FLAGS = '-fopenmp -fsanitize=thread -g -O1';

/** What TSan of clang before 18 prints and dies with on a kernel with vm.mmap_rnd_bits=32 (Linux ≥ 6.6). */
const MAPPING_FAILURE = 'ThreadSanitizer: unexpected memory mapping';

export interface RaceCheckSetup {
  /** The suggestions' build settings with the race compiler and RACE_FLAGS. */
  buildSettings: Record<string, string>;
  compiler: RaceCompiler;
  /** The project's own compiler is gcc: a race that is clang's fault is recorded as such. */
  projectGcc: boolean;
  threads: number;
  timeoutMs: number;
  /** PATH of the settings, where setarch is looked up. */
  searchPath: string;
  /** The reference's own races (pair keys): a candidate is not blamed for them. */
  known: ReadonlySet<string>;
}

type RaceReportFound = Omit<RaceReport, 'clang_fault'> & {
  key: string;
  /** The array-section reduction item of the patch set whose original the access is. */
  section: string | null;
};

/** What one race run showed, read while its workspace still exists. */
export interface RaceRun {
  run: ProgramRun;
  /** A log says `Running under ThreadSanitizer`: the program really was built with TSan. */
  instrumented: boolean;
  reports: RaceReportFound[];
  /**
   * TSan died with "unexpected memory mapping": `retried` once under `setarch <arch> -R` (address
   * space randomization off), `still` when that run died the same way or setarch is missing.
   */
  mapping: { retried: boolean; still: boolean } | null;
}

/** The race flags of `compiler`: its own libomp found at run time, so libomp loads its Archer. */
export function raceFlagsOf(compiler: RaceCompiler): string {
  return compiler.rpath ? `${RACE_FLAGS} ${compiler.rpath}` : RACE_FLAGS;
}

/** The configuration's settings with the compiler set to the race compiler and the race flags added. */
export function raceSettingsOf(
  settings: Readonly<Record<string, string>>,
  compiler: RaceCompiler,
): Record<string, string> {
  const flags = raceFlagsOf(compiler);
  const add = (own: string | undefined) => (own && own.trim().length > 0 ? `${own} ${flags}` : flags);
  const link = `-fopenmp -fsanitize=thread${compiler.rpath ? ` ${compiler.rpath}` : ''}`;
  return {
    ...settings,
    CC: compiler.cc,
    CXX: compiler.cxx,
    CFLAGS: add(settings['CFLAGS']),
    CXXFLAGS: add(settings['CXXFLAGS']),
    ...(settings['LDFLAGS'] !== undefined && { LDFLAGS: `${settings['LDFLAGS']} ${link}` }),
  };
}

/** `clang-19 (clang 19, the project's compiler)`: which clang built the race build, and why that one. */
export function compilerText(compiler: RaceCompiler): string {
  return `${compiler.cc} (${compiler.version !== null ? `clang ${compiler.version}, ` : ''}${compiler.chosen})`;
}

/** The Debian packages the race build's clang needs, as a refusal names them. */
export function installText(compiler: RaceCompiler): string {
  return `install the Debian packages ${racePackages(compiler.version)}`;
}

/** Runs the race build's program once and reads ThreadSanitizer's logs. */
export async function raceRun(
  program: ProgramRunner,
  built: IsolatedBuild,
  o: { threads: number; timeoutMs: number; symbolizer: string | null; searchPath: string },
): Promise<RaceRun> {
  const logs = join(built.scratch, 'tsan');
  const options = (attempt: number) => [
    `log_path=${join(logs, `${attempt}`, 'report')}`,
    'ignore_noninstrumented_modules=1',
    'halt_on_error=0',
    `exitcode=${TSAN_EXIT_CODE}`,
    'verbosity=1',
    ...(o.symbolizer ? [`external_symbolizer_path=${o.symbolizer}`] : []),
  ];
  const attempt = async (n: number, prefix?: string[]) => {
    await mkdir(join(logs, `${n}`), { recursive: true });
    const run = await program.run(o.threads, o.timeoutMs, { TSAN_OPTIONS: options(n).join(' ') }, prefix);
    faultPoint('races.after-run');
    const folder = join(logs, `${n}`);
    const texts = await Promise.all((await readdir(folder)).sort().map((name) => readFile(join(folder, name), 'utf8')));
    const died = [run.output, ...texts].some((text) => text.includes(MAPPING_FAILURE));
    return { run, texts, died };
  };
  let ran = await attempt(1);
  let mapping: RaceRun['mapping'] = null;
  if (ran.died) {
    const setarch = await findExecutable('setarch', o.searchPath);
    if (setarch === null) mapping = { retried: false, still: true };
    else {
      ran = await attempt(2, [setarch, machine(), '-R']);
      mapping = { retried: true, still: ran.died };
    }
  }
  const { run, texts } = ran;
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
  const sections = new Map<string, string>();
  for (const [rel, rows] of built.added)
    for (const row of rows) for (const [name, item] of sectionItems(await lineOf(rel, row))) sections.set(name, item);
  const reports = [];
  const seen = new Set<string>();
  for (const race of texts.flatMap(parseTsanLog)) {
    const report = await describe(race, roots, built.added, lineOf, sections);
    if (seen.has(report.key)) continue;
    seen.add(report.key);
    reports.push(report);
  }
  return { run, instrumented: texts.some((t) => t.includes('Running under ThreadSanitizer')), reports, mapping };
}

/** The record of a race run, and the follow-up text when a report reaches the patch set. */
export function judgeRaces(
  ran: RaceRun,
  s: Pick<RaceCheckSetup, 'threads' | 'known' | 'compiler' | 'projectGcc'>,
  seconds: number,
): { record: RaceCheck; reason: string | null } {
  const reports = ran.reports
    .filter((r) => !s.known.has(r.key))
    .map((r) => ({ ...r, clang_fault: r.section === null ? null : clangFault(r.section, s.projectGcc) }));
  const ours = reports.filter((r) => r.in_patch);
  const verdict = ours.length > 0 ? 'races' : reports.length > 0 ? 'races_elsewhere' : 'clean';
  const record: RaceCheck = {
    threads: s.threads,
    verdict,
    reports: reports.map(({ first, previous, variable, in_patch, lines, clang_fault }) => ({
      first,
      previous,
      variable,
      in_patch,
      lines,
      clang_fault,
    })),
    seconds: toTheMillisecond(seconds),
    detail: mappingDetail(ran.mapping) ?? runDetail(ran.run),
    compiler: compilerText(s.compiler),
    setarch: ran.mapping?.retried ?? false,
  };
  if (ours.length === 0) return { record, reason: null };
  const pairs = ours.map((r) => `- ${pairText(r)}\n${r.lines.map((l) => `    ${l}`).join('\n')}`);
  const faults = [...new Set(ours.flatMap((r) => (r.clang_fault ? [r.clang_fault] : [])))];
  const fix =
    faults.length > 0
      ? `${faults.join('\n')}\nKeep every directive; write the reduction in the whole-array form, or reduce through a local pointer (an alias) to the array, which clang privatizes.`
      : 'Two threads access the same memory without synchronization and at least one writes: a variable every iteration writes must be private (or a reduction), an array the threads combine into needs a reduction or atomic updates. Keep every directive and fix its clauses.';
  return {
    record,
    reason: `The project builds with the corrected patch set, but ThreadSanitizer (${s.compiler.cc} -fsanitize=thread with LLVM's Archer, which knows OpenMP's synchronization; execute.sh at ${s.threads} threads) reports ${ours.length === 1 ? 'a data race' : `${ours.length} data races`} in the parallel region the patch set opens:\n${pairs.join('\n')}\n${fix}`,
  };
}

/** A race on the original of an array-section reduction item: clang's own fault, named. */
function clangFault(section: string, projectGcc: boolean): string {
  const base = section.replace(/\s*\[.*$/, '');
  return `clang (14 to 19) does not privatize the array-section reduction item \`${section}\` over the file-scope \`${base}\`: every thread updates the shared original. ${projectGcc ? "This race is clang's: gcc, the project's own compiler, privatizes it; the repair is still rejected, since it must be right under both compilers DiscoPoP uses." : ''}`.trim();
}

function mappingDetail(mapping: RaceRun['mapping']): string | null {
  if (mapping === null) return null;
  if (!mapping.still)
    return `ThreadSanitizer died with "unexpected memory mapping" (the kernel's vm.mmap_rnd_bits); the run was repeated under setarch -R, which ran`;
  return `ThreadSanitizer died with "unexpected memory mapping": the kernel's vm.mmap_rnd_bits is more than TSan of this clang supports, and ${mapping.retried ? 'the run under setarch -R died the same way' : 'setarch is not installed to run it without address randomization'}`;
}

/** Array-section items of the reduction clauses on a directive line: \`hist\` → \`hist[:4]\`. */
export function sectionItems(line: string): Map<string, string> {
  const items = new Map<string, string>();
  if (!/^\s*#\s*pragma\s+omp\b/.test(line)) return items;
  for (const clause of line.matchAll(/\breduction\s*\(([^:()]*(?:\([^()]*\))?[^:()]*):((?:[^()]|\([^()]*\))*)\)/g)) {
    for (const item of splitTopLevel(clause[2]!)) {
      const match = /^\s*([A-Za-z_]\w*)\s*\[/.exec(item);
      if (match) items.set(match[1]!, item.trim());
    }
  }
  return items;
}

function splitTopLevel(list: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    const c = list[i]!;
    if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(list.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(list.slice(start));
  return parts;
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
  sections: ReadonlyMap<string, string>,
): Promise<RaceReportFound> {
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
  const section = variable !== null ? (sections.get(variable) ?? null) : null;
  return { first, previous, variable, in_patch: inPatch, key: halves.join('|'), lines, section };
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

/** clang 14's `.omp_outlined._debug__`, clang 19's `main.omp_outlined_debug__`. */
const OUTLINED = /(?:^|\.)omp_(?:outlined|task_entry)/;

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
