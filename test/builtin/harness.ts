// Fixture harness: builds a generated patch exactly as DiscoPoP's patch generator does (pragma
// text rules of formats.md §2, insertion before the start line, real `diff -Naru`), compiles
// the patched file with real gcc/g++ or clang/clang++, parses the output as the build stage does,
// and checks an answer with real GNU patch and the same compiler again.
import { readFileSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { addedDirectiveLines, addedLineNumbers } from '../../src/build/apply.js';
import { preprocessPatched, type Preprocessed } from '../../src/build/preprocess.js';
import { classifyByPosition, firstError, judgeDiagnostics, parseDiagnostics } from '../../src/build/diagnostics.js';
import { runProcess } from '../../src/process.js';
import { projectWith } from '../diagnostics/compilers.js';
import { checkDirectivesKept } from '../../src/patch/index.js';
import { addsCollapse, collapseFindings, withCollapseFindings } from '../../src/builtin/collapse-check.js';
import type { BuiltinResult, RepairTask } from '../../src/formats/task.js';
import type { BuildResult, Diagnostic, Suggestion } from '../../src/formats/types.js';

/** One pattern entry, in the explorer's field names; `text` gives a directive verbatim (pipeline). */
export interface GeneratorDirective {
  start_line: number;
  pragma?: string;
  first_private?: string[];
  private?: string[];
  last_private?: string[];
  shared?: string[];
  reduction?: string[];
  collapse_level?: number;
  text?: string;
}

export type CompilerFamily = 'gcc' | 'clang';
/**
 * A compiler the fixtures are built with: gcc 12, clang 14 (`clang`), and clang 19, the LLVM
 * DiscoPoP's master builds with, which shares clang 14's expectations unless a fixture names it.
 */
export type CompilerName = CompilerFamily | 'clang-19';

const COMMANDS: Record<CompilerName, { c: string; cxx: string }> = {
  gcc: { c: 'gcc', cxx: 'g++' },
  clang: { c: 'clang', cxx: 'clang++' },
  'clang-19': { c: 'clang-19', cxx: 'clang++-19' },
};

const clang19 = await runProcess({ command: 'clang-19', args: ['--version'], cwd: tmpdir(), timeoutMs: 20_000 });
/** clang 19 is left out where it is not installed (CI installs it: .ci/run). */
export const COMPILERS: readonly CompilerName[] =
  clang19.kind === 'exited' && clang19.exitCode === 0 ? ['gcc', 'clang', 'clang-19'] : ['gcc', 'clang'];

export function familyOf(compiler: CompilerName): CompilerFamily {
  return compiler === 'gcc' ? 'gcc' : 'clang';
}

export interface Expectation {
  /**
   * `builds`: this compiler accepts the generated patch, so there is nothing to repair. `wrong`: a
   * known defect, recorded for a real-code fixture until it is fixed: the repairer answers, and the
   * answer fails the checks (does not compile, drops a directive, or changes the output).
   */
  expect: 'repaired' | 'declined' | 'builds' | 'wrong';
  /** For declines: a phrase the reason must contain. */
  reason?: string;
  /** For repairs: the rules expected to fire, in order. */
  rules?: string[];
  /** For repairs: the added directives after the repair, trimmed, in source order. */
  repaired?: string[];
}

export interface FixtureSpec extends Expectation {
  /** Design error class the fixture belongs to. */
  class: string;
  /** Source path relative to the fixture's `project/`. */
  file: string;
  directives: GeneratorDirective[];
  /** Where one compiler's outcome differs from the common one (clang builds what gcc rejects). */
  compilers?: Partial<Record<CompilerName, Expectation>>;
  /** The repair rewrites code, not only directives; the source then has a `main` that prints its result. */
  rewritesCode?: boolean;
  /** The thread counts the program is run with, where 1 and 4 would not show a wrong result (gcc's collapse fault). */
  threads?: string[];
}

/**
 * How a whole program is built (fixtures/shapes/<code>/code.json, or a real code's in
 * BUILTIN_REAL_DIR): what its compile.sh runs
 * from project/, `<cc> -fopenmp <flags> <sources> <libs>`, and how it is run.
 */
export interface ProgramBuild {
  sources: string[];
  flags: string[];
  libs?: string[];
  /** Command-line arguments of the run (a small input). */
  args?: string[];
  /** The output lines compared (a regular expression), when the rest reports timings; all lines by default. */
  compare?: string;
}

/** Everything the harness needs to build and run a fixture from a whole project rather than one file. */
export interface ProjectBuild {
  /** The project folder copied whole (headers, utility sources, inputs). */
  projectDir: string;
  build: ProgramBuild;
  /**
   * A scratch folder of this program's own, where its untouched translation units are compiled
   * once per compiler: a build compiles only the suggestion's unit and links it with them.
   */
  units: string;
}

/** A suggestion on a whole program: fixtures/shapes/<code>/suggestions/*.json, or a real code's. */
export interface CodeSpec extends FixtureSpec {
  /** The program of code.json the suggestion's file belongs to. */
  program: string;
  /** What issue 20 says must happen under both compilers; `expect` is today's behaviour. */
  target: Expectation['expect'];
  /** For a decline the issue wants (restructuring, unstated extents): what its reason must say. */
  targetReason?: string;
  /** The DiscoPoP mistake the suggestion carries. */
  mistake: string;
  /** Own-shape fixtures: the real loop whose shape it reproduces, in one line ("shape of …"). */
  shape?: string;
  /** Own-shape fixtures: the real suggestion reproduced, as `<code>/<name>` in a copy of the real codes. */
  reproduces?: string;
}

export interface CodeFixture extends Fixture {
  /** `shapes/<code>` for the fixtures written here, `<code>` for a real code measured from outside. */
  code: string;
  spec: CodeSpec;
  project: ProjectBuild;
}

/** The own-shape programs, always in the tree; the real codes are measured from a copy kept outside it. */
export const SHAPES_DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'shapes');
export const REAL_DIR: string | undefined = process.env.BUILTIN_REAL_DIR || undefined;
/** The one line a test prints when BUILTIN_REAL_DIR is unset: how to measure the real codes. */
export function realCodeSkipped(testFile: string): string {
  return `real code skipped: BUILTIN_REAL_DIR=<folder of real codes laid out as fixtures/shapes> npx vitest run ${testFile}`;
}

/**
 * Every suggestion of every code under `dir` (<code>/code.json, <code>/project/,
 * <code>/suggestions/*.json), sorted; `prefix` names where they come from. `only` keeps those codes;
 * `firstOfEach` keeps each code's first suggestion. Untouched units are compiled under `scratch`.
 */
export async function loadCodeFixtures(
  dir: string,
  prefix: string,
  scratch: string,
  options: { only?: string[]; firstOfEach?: boolean } = {},
): Promise<CodeFixture[]> {
  const fixtures: CodeFixture[] = [];
  for (const name of (await readdir(dir)).sort().filter((code) => !options.only || options.only.includes(code))) {
    const code = `${prefix}${name}`;
    const codeJson = join(dir, name, 'code.json');
    const programs = (JSON.parse(await readFile(codeJson, 'utf8')) as { programs: Record<string, ProgramBuild> })
      .programs;
    const files = (await readdir(join(dir, name, 'suggestions'))).sort();
    for (const file of options.firstOfEach ? files.slice(0, 1) : files) {
      const spec = JSON.parse(await readFile(join(dir, name, 'suggestions', file), 'utf8')) as CodeSpec;
      const build = programs[spec.program];
      if (!build)
        throw new Error(`${join(dir, name, 'suggestions', file)}: no program '${spec.program}' in ${codeJson}`);
      fixtures.push({
        code,
        name: `${code}/${file.replace(/\.json$/, '')}`,
        dir: join(dir, name),
        spec,
        project: { projectDir: join(dir, name, 'project'), build, units: join(scratch, 'units', code, spec.program) },
      });
    }
  }
  return fixtures;
}

/** What is expected under one compiler. */
export function expectationFor(spec: FixtureSpec, family: CompilerName): Expectation {
  return (
    spec.compilers?.[family] ??
    spec.compilers?.[familyOf(family)] ?? {
      expect: spec.expect,
      reason: spec.reason,
      rules: spec.rules,
      repaired: spec.repaired,
    }
  );
}

export interface Fixture {
  name: string;
  dir: string;
  spec: FixtureSpec;
  /** Real-code fixtures: the whole project and its build; class fixtures are one file compiled alone. */
  project?: ProjectBuild;
}

/** formats.md §2.3: pragma, then each clause followed by one space, in the generator's order. */
export function renderGeneratorPragma(d: GeneratorDirective): string {
  if (d.text !== undefined) return d.text;
  let text = `${d.pragma ?? '#pragma omp parallel for'} `;
  if ((d.collapse_level ?? 1) > 1) text += `collapse(${d.collapse_level}) `;
  const list = (name: string, vars: string[] | undefined) => {
    if (vars && vars.length > 0) text += `${name}(${vars.join(',')}) `;
  };
  list('firstprivate', d.first_private);
  list('private', d.private);
  list('lastprivate', d.last_private);
  list('shared', d.shared);
  const byOperator = new Map<string, string[]>();
  for (const entry of d.reduction ?? []) {
    const colon = entry.indexOf(':');
    const operator = entry.slice(0, colon);
    byOperator.set(operator, [...(byOperator.get(operator) ?? []), entry.slice(colon + 1)]);
  }
  for (const [operator, vars] of byOperator) text += `reduction(${operator}:${vars.join(',')}) `;
  return text;
}

export interface Prepared {
  fixture: Fixture;
  family: CompilerName;
  task: RepairTask;
  /** Absolute path of the original source in the scratch project. */
  sourcePath: string;
}

export async function prepareFixture(fixture: Fixture, scratch: string, family: CompilerName): Promise<Prepared> {
  const root = join(scratch, family, fixture.name);
  const sourcePath = join(root, 'project', fixture.spec.file);
  await copyProject(fixture, join(root, 'project'));
  const original = await readFile(sourcePath, 'utf8');
  const lines = original.split('\n');
  // Every directive is inserted before its start line (original numbering), indented like it;
  // lines inserted before the same line keep the spec's order, as the generator's do (a task
  // region's `parallel`, `single`, `{` and first `task` all stand before the first task's line).
  const sorted = fixture.spec.directives
    .map((directive, index) => ({ directive, index }))
    .sort((a, b) => b.directive.start_line - a.directive.start_line || b.index - a.index)
    .map(({ directive }) => directive);
  for (const directive of sorted) {
    const target = lines[directive.start_line - 1] ?? '';
    lines.splice(directive.start_line - 1, 0, /^\s*/.exec(target)![0] + renderGeneratorPragma(directive));
  }
  // The generator writes every line with a final newline, so a file without one gains it (formats.md §2.7).
  const joined = lines.join('\n');
  const patched = joined.endsWith('\n') ? joined : `${joined}\n`;
  const tempPath = `${sourcePath}.discopop_patch_generator.temp`;
  await writeFile(tempPath, patched);
  const diff = await runProcess({ command: 'diff', args: ['-Naru', sourcePath, tempPath], cwd: root });
  if (diff.kind !== 'exited' || diff.exitCode !== 1) throw new Error(`diff -Naru failed for ${fixture.name}`);
  const generated = diff.stdout;
  const patchDir = join(root, 'patch_generator', '1');
  await mkdir(patchDir, { recursive: true });
  await writeFile(join(patchDir, '1.patch'), generated);

  const workspace = join(root, 'workspace');
  await copyProject(fixture, workspace);
  await writeFile(join(workspace, fixture.spec.file), patched);
  const compiled = await compile(workspace, fixture.spec.file, family, { original, project: fixture.project });
  // The pipeline's static collapse check judges the build whatever the compiler said; it reads the same unit.
  const unit =
    compiled.ok && !addsCollapse(generated) ? null : await translationUnit(workspace, fixture, family, patched);
  const build: BuildResult = withCollapseFindings(
    {
      ok: compiled.ok,
      ...(compiled.ok ? {} : { failedAt: 'compile' as const }),
      output: compiled.output,
      diagnostics: compiled.diagnostics,
      durationMs: compiled.durationMs,
    },
    await collapseFindings([
      {
        fileId: '1',
        relPath: fixture.spec.file,
        patch: generated,
        patched,
        ...(unit?.ok && { translationUnit: unit.text }),
      },
    ]),
  );
  const suggestion: Suggestion = {
    id: '1',
    dir: patchDir,
    files: [
      {
        fileId: '1',
        patchPath: join(patchDir, '1.patch'),
        text: generated,
        source: { id: '1', path: sourcePath, relPath: fixture.spec.file },
      },
    ],
    pattern: null,
    hotspot: null,
  };
  return {
    fixture,
    family,
    sourcePath,
    task: {
      suggestion,
      sources: new Map([['1', original]]),
      generated: new Map([['1', generated]]),
      patched: new Map([['1', patched]]),
      build,
      ...(unit?.ok && { translationUnits: new Map([['1', unit.text]]) }),
      ...(unit?.ok === false && { translationUnitsMissing: new Map([['1', unit.reason]]) }),
    },
  };
}

/**
 * The patched file's translation unit as the pipeline makes it (src/build/preprocess.ts): the
 * settings name the fixture's compiler and flags, compile.sh runs from the project root.
 */
async function translationUnit(
  workspace: string,
  fixture: Fixture,
  family: CompilerName,
  patched: string,
): Promise<Preprocessed> {
  const flags = ['-fopenmp', ...(fixture.project?.build.flags ?? [])].join(' ');
  const project = projectWith(workspace, [fixture.spec.file]);
  const dp = {
    ...project,
    config: {
      ...project.config,
      layout: 'shared' as const,
      settings: { CC: COMMANDS[family].c, CXX: COMMANDS[family].cxx, CFLAGS: flags, CXXFLAGS: flags },
    },
  };
  return preprocessPatched({ dp, source: dp.files.get('1')!, patched });
}

/** Copies what a fixture builds from into `to`: its whole project folder, headers beside the source included. */
async function copyProject(fixture: Fixture, to: string): Promise<void> {
  await cp(fixture.project?.projectDir ?? join(fixture.dir, 'project'), to, { recursive: true });
}

/** The compiler driver compile.sh names: a program with any C++ source is built by the C++ driver, its C sources included. */
const programDriver = (project: ProjectBuild, family: CompilerName) =>
  COMMANDS[family][project.build.sources.every((source) => source.endsWith('.c')) ? 'c' : 'cxx'];

interface Step {
  ok: boolean;
  output: string;
  durationMs: number;
}

async function callCompiler(command: string, args: string[], cwd: string): Promise<Step> {
  const outcome = await runProcess({ command, args, cwd, env: { LC_ALL: 'C' }, timeoutMs: 120_000 });
  if (outcome.kind === 'spawn-failed') throw new Error(`${command}: ${outcome.message}`);
  return {
    ok: outcome.kind === 'exited' && outcome.exitCode === 0,
    output: outcome.stdout + outcome.stderr,
    durationMs: outcome.durationMs,
  };
}

/** One translation unit of a program, compiled as compile.sh compiles it: `-fopenmp <flags>`, from the project root. */
function compileUnit(
  root: string,
  source: string,
  object: string,
  family: CompilerName,
  project: ProjectBuild,
): Promise<Step> {
  return callCompiler(
    programDriver(project, family),
    ['-fopenmp', ...project.build.flags, '-c', source, '-o', object],
    root,
  );
}

interface Unit extends Step {
  object: string;
}

const untouched = new Map<string, Promise<Unit[]>>();
const originals = new Map<string, Promise<string[] | null>>();

function once<T>(memo: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  if (!memo.has(key)) memo.set(key, make());
  return memo.get(key)!;
}

/** Where a program's untouched units are compiled under one compiler, beside an untouched copy of its project. */
const untouchedDir = (project: ProjectBuild, family: CompilerName) => join(project.units, family);

/**
 * The program's translation units compiled once per compiler from an untouched copy of its
 * project, in the order compile.sh names them. Every build of a suggestion shares them: only its
 * own unit differs (a fixture's `file` is always one of the program's sources).
 */
function untouchedUnits(project: ProjectBuild, family: CompilerName): Promise<Unit[]> {
  const dir = untouchedDir(project, family);
  return once(untouched, dir, async () => {
    await cp(project.projectDir, join(dir, 'project'), { recursive: true });
    return inBatches([...project.build.sources.entries()], 2, async ([index, source]) => {
      const object = join(dir, `unit-${index}.o`);
      return { ...(await compileUnit(join(dir, 'project'), source, object, family, project)), object };
    });
  });
}

/** The link step of compile.sh's command: `-fopenmp <flags> <objects> <libs>`, objects in source order. */
function link(
  root: string,
  objects: string[],
  family: CompilerName,
  project: ProjectBuild,
  output: string,
): Promise<Step> {
  return callCompiler(
    programDriver(project, family),
    ['-fopenmp', ...project.build.flags, ...objects, ...(project.build.libs ?? []), '-o', output],
    root,
  );
}

/**
 * A real code's program built as its compile.sh builds it, `<cc> -fopenmp <flags> <sources>
 * <libs>`, but with `relPath`'s unit alone compiled here and the others taken from
 * untouchedUnits. The output is what the one command prints: each unit's diagnostics in source
 * order (the driver compiles them one after another), then the link's; the link runs only when
 * every unit compiled.
 */
async function buildProgram(
  root: string,
  relPath: string,
  family: CompilerName,
  project: ProjectBuild,
  output: string,
): Promise<Step> {
  const index = project.build.sources.indexOf(relPath);
  if (index < 0)
    throw new Error(`${relPath} is not a source of the program: a fixture patches one of its translation units`);
  const units = await untouchedUnits(project, family);
  const object = join(root, '.patched-unit.o');
  const own = await compileUnit(root, relPath, object, family, project);
  const steps = units.map((unit, at) => (at === index ? { ...own, object } : unit));
  const compiled: Step = {
    ok: steps.every((step) => step.ok),
    output: steps.map((step) => step.output).join(''),
    durationMs: own.durationMs,
  };
  if (!compiled.ok) return compiled;
  const linked = await link(
    root,
    steps.map((step) => step.object),
    family,
    project,
    output,
  );
  return {
    ok: linked.ok,
    output: compiled.output + linked.output,
    durationMs: compiled.durationMs + linked.durationMs,
  };
}

/**
 * What a real code's original program prints with 1 and with 4 threads (programOutputs): its
 * untouched units linked, run in the untouched copy of its project; once per program and compiler.
 * Null when it does not build or does not exit by itself.
 */
export function originalOutputs(
  fixture: Fixture & { project: ProjectBuild },
  family: CompilerName,
): Promise<string[] | null> {
  const { project } = fixture;
  const dir = untouchedDir(project, family);
  return once(originals, dir, async () => {
    const units = await untouchedUnits(project, family);
    const program = join(dir, 'project', 'program');
    const built =
      units.every((unit) => unit.ok) &&
      (
        await link(
          join(dir, 'project'),
          units.map((unit) => unit.object),
          family,
          project,
          program,
        )
      ).ok;
    return built ? programOutputs(program, fixture) : null;
  });
}

/**
 * Compiles like a project's compile.sh: from the project root, with relative paths. A class
 * fixture compiles its one file (`-c`, or linked to `output`); a real code builds its program
 * (buildProgram). Given the `original` source of `relPath`, the output is judged as the build
 * stage judges a patched build: a warning that the compiler ignored part of a directive on a line
 * added to the original fails it.
 */
export async function compile(
  root: string,
  relPath: string,
  family: CompilerName,
  options: { output?: string; original?: string; project?: ProjectBuild } = {},
): Promise<{ ok: boolean; output: string; diagnostics: Diagnostic[]; durationMs: number }> {
  const { output, original, project } = options;
  const step = project
    ? await buildProgram(root, relPath, family, project, output ?? join(root, '.compile-check'))
    : await callCompiler(
        COMMANDS[family][relPath.endsWith('.c') ? 'c' : 'cxx'],
        ['-fopenmp', ...(output === undefined ? ['-c', relPath, '-o', '/dev/null'] : [relPath, '-o', output])],
        root,
      );
  const patched = await readFile(join(root, relPath), 'utf8');
  const lines = original === undefined ? new Set<number>() : addedLineNumbers(original, patched);
  // The suggestion's file is file 1, as in the RepairTask; the program's other sources follow.
  const projectFiles = [relPath, ...(project?.build.sources.filter((source) => source !== relPath) ?? [])];
  const diagnostics = classifyByPosition(
    judgeDiagnostics(parseDiagnostics(step.output, projectWith(root, projectFiles), root), new Map([['1', lines]])),
    new Map([['1', addedDirectiveLines(patched, lines)]]),
  );
  return {
    ok: step.ok && firstError(diagnostics) === undefined,
    output: step.output,
    diagnostics,
    durationMs: step.durationMs,
  };
}

export interface Checked {
  applied: boolean;
  patchOutput: string;
  compiled: boolean;
  compileOutput: string;
  repaired: string;
  /** The program as the check built it, run where it was built; null for a fixture that is not run (runsProgram). */
  program: string | null;
}

/** A fixture whose build is a program to run: a real code, or a class fixture whose source has a `main` printing its result. */
export function runsProgram(fixture: Fixture): boolean {
  return (
    fixture.project !== undefined ||
    /\bint\s+main\s*\(/.test(readFileSync(join(fixture.dir, 'project', fixture.spec.file), 'utf8'))
  );
}

/**
 * Applies each ```diff block of the answer with GNU patch (explicit target, as DiscoPoP does) and
 * compiles; a fixture that is run is linked into the program that programOutputs runs.
 */
export async function applyAndCompile(prepared: Prepared, answer: string, scratch: string): Promise<Checked> {
  const blocks = [...answer.matchAll(/```diff\n([\s\S]*?)```/g)].map((match) => match[1]!);
  const dir = join(scratch, prepared.family, prepared.fixture.name, 'verify');
  const target = join(dir, prepared.fixture.spec.file);
  await copyProject(prepared.fixture, dir);
  await writeFile(target, prepared.task.sources.get('1')!);
  let patchOutput = '';
  for (const [index, block] of blocks.entries()) {
    const patchFile = join(dir, `answer-${index}.patch`);
    await writeFile(patchFile, block);
    const outcome = await runProcess({ command: 'patch', args: ['--batch', target, patchFile], cwd: dir });
    if (outcome.kind !== 'exited' || outcome.exitCode !== 0) {
      return {
        applied: false,
        patchOutput: outcome.kind === 'spawn-failed' ? outcome.message : outcome.stdout + outcome.stderr,
        compiled: false,
        compileOutput: '',
        repaired: '',
        program: null,
      };
    }
    patchOutput += outcome.stdout;
  }
  const program = runsProgram(prepared.fixture) ? join(dir, 'program') : undefined;
  const compiled = await compile(dir, prepared.fixture.spec.file, prepared.family, {
    original: prepared.task.sources.get('1')!,
    project: prepared.fixture.project,
    output: program,
  });
  return {
    applied: blocks.length > 0,
    patchOutput,
    compiled: compiled.ok,
    compileOutput: compiled.output,
    repaired: await readFile(target, 'utf8'),
    program: compiled.ok ? (program ?? null) : null,
  };
}

/**
 * Each OpenMP directive with the construct it names and the loop header it stands above: the
 * next line that is not blank, a comment or another line of the directive. Independent of the
 * repairer's own scope analysis on purpose.
 */
export function directivesAboveLoops(source: string): { construct: string; next: string }[] {
  const lines = source.split('\n');
  const result: { construct: string; next: string }[] = [];
  lines.forEach((line, row) => {
    const match = /^\s*#\s*pragma\s+omp\s+(.*)$/.exec(line);
    if (!match) return;
    const construct = match[1]!
      .split(/\s+/)
      .filter((word) => /^(parallel|for|simd|task|taskloop|target|teams|distribute)$/.test(word))
      .join(' ');
    const next = lines.slice(row + 1).find((candidate) => candidate.trim() !== '' && !/^\s*\/\//.test(candidate)) ?? '';
    result.push({ construct, next: next.trim() });
  });
  return result;
}

/** The first `for` header at or after each generated directive's start line, in the original. */
export function expectedLoops(original: string, spec: FixtureSpec): { construct: string; next: string }[] {
  const lines = original.split('\n');
  return spec.directives.map((directive) => {
    const construct = renderGeneratorPragma(directive)
      .replace(/^\s*#\s*pragma\s+omp\s+/, '')
      .split(/\s+/)
      .filter((word) => /^(parallel|for|simd|task|taskloop|target|teams|distribute)$/.test(word))
      .join(' ');
    const isLoop = /\b(for|simd|taskloop|distribute)\b/.test(construct);
    const from = directive.start_line - 1;
    const next = isLoop
      ? lines.slice(from).find((line) => /^\s*for\b/.test(line))
      : lines.slice(from).find((line) => line.trim() !== '');
    return { construct, next: (next ?? '').trim() };
  });
}

/**
 * The program's output (stdout, then stderr: PolyBench dumps its arrays there) with 1 and with 4
 * threads, built from `source` in place of the fixture's file (a class fixture's source has a
 * `main` printing its result; a real code is its whole program, run with its arguments). Null
 * when it does not build or does not exit by itself.
 */
export async function runOutputs(
  dir: string,
  fixture: Fixture,
  source: string,
  family: CompilerName,
): Promise<string[] | null> {
  await copyProject(fixture, dir);
  await writeFile(join(dir, fixture.spec.file), source);
  const built = await compile(dir, fixture.spec.file, family, {
    output: join(dir, 'program'),
    project: fixture.project,
  });
  return built.ok ? programOutputs(join(dir, 'program'), fixture) : null;
}

/** What `program` prints with 1 and with 4 threads (or the fixture's own counts), run in its folder (a copy of the fixture's project). */
export async function programOutputs(program: string, fixture: Fixture): Promise<string[] | null> {
  const outputs: string[] = [];
  for (const threads of fixture.spec.threads ?? ['1', '4']) {
    const run = await runProcess({
      command: program,
      args: fixture.project?.build.args ?? [],
      cwd: dirname(program),
      env: { OMP_NUM_THREADS: threads },
      timeoutMs: 60_000,
    });
    if (run.kind !== 'exited') return null;
    const compared = fixture.project?.build.compare;
    const printed = run.stdout + run.stderr;
    const kept =
      compared === undefined
        ? printed
        : printed
            .split('\n')
            .filter((line) => new RegExp(compared).test(line))
            .join('\n');
    // The exit status is part of what a program reports (XSBench exits 1 for a checksum it does not know).
    outputs.push(run.exitCode === 0 ? kept : `${kept}\nexit status ${run.exitCode}`);
  }
  return outputs;
}

/** Runs `work` over `items` with at most `limit` at a time (gcc dominates; two cores in CI). */
export async function inBatches<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!);
      }
    }),
  );
  return results;
}

/** One fixture through the repairer under one compiler. */
export interface Run {
  prepared: Prepared;
  /** Null when the generated patch builds (nothing to repair). */
  result: BuiltinResult | null;
  checked: Checked | null;
  /** Program output with 1 and 4 threads: the original (sequential) program, then the repaired one. */
  outputs: { original: string[] | null; repaired: string[] | null } | null;
}

export type Outcome = 'builds' | 'repaired' | 'handed-on' | 'wrong';

const NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

/**
 * The same output, except that a printed number may differ in its last printed digit: a
 * reduction adds the same terms in another order, and a sum that sits on a rounding boundary
 * (2.125 printed with two decimals) can then print one unit apart. Everything else must match
 * exactly, so a wrong repair (a privatized array read in the loop) still shows.
 */
export function sameOutput(expected: string, actual: string): boolean {
  if (expected === actual) return true;
  const a = expected.split(/(\s+)/);
  const b = actual.split(/(\s+)/);
  return (
    a.length === b.length &&
    a.every((token, index) => {
      const other = b[index]!;
      if (token === other) return true;
      if (!NUMBER.test(token) || !NUMBER.test(other)) return false;
      const decimals = /\.(\d+)/.exec(token.split(/[eE]/)[0]!)?.[1]?.length ?? 0;
      const exponent = /[eE]([-+]?\d+)$/.exec(token)?.[1];
      const unit = 10 ** ((exponent === undefined ? 0 : Number(exponent)) - decimals);
      return Math.abs(Number(token) - Number(other)) <= unit * 1.0000001;
    })
  );
}

/**
 * What the repairer's answer is worth: `repaired` only when it applies with GNU patch, compiles,
 * keeps every generated directive as the same construct above the same loop (check 5) and, for a
 * program that is run, prints with 1 and with 4 threads what the original prints with as many; any
 * answer short of that is `wrong`, with the reasons.
 */
export function judgeRun(run: Run, isRun: boolean): { outcome: Outcome; reasons: string[]; reason?: string } {
  if (run.result === null) return { outcome: 'builds', reasons: [] };
  if (run.result.kind === 'declined') return { outcome: 'handed-on', reasons: [], reason: run.result.reason };
  const reasons: string[] = [];
  const kept = run.checked?.applied
    ? checkDirectivesKept({
        original: run.prepared.task.sources.get('1')!,
        generated: run.prepared.task.patched.get('1')!,
        candidate: run.checked.repaired,
      })
    : null;
  if (!run.checked?.applied) reasons.push('does not apply');
  else if (!run.checked.compiled) reasons.push('does not compile');
  if (kept && !kept.ok) reasons.push(`drops a directive: ${kept.reason}`);
  // Each thread count against the original program run the same way: a code with OpenMP of its own
  // (LULESH) rounds differently with 4 threads than with 1 before any suggestion is applied.
  if (
    run.outputs?.repaired?.some((output, index) => {
      const original = run.outputs?.original?.[index];
      return original === undefined || !sameOutput(original, output);
    })
  )
    reasons.push('changes the output');
  if (isRun && (!run.outputs?.original || !run.outputs.repaired)) reasons.push('output not compared');
  return { outcome: reasons.length === 0 ? 'repaired' : 'wrong', reasons };
}
