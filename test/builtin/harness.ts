// Fixture harness: builds a generated patch exactly as DiscoPoP's patch generator does (pragma
// text rules of formats.md §2, insertion before the start line, real `diff -Naru`), compiles
// the patched file with real gcc/g++ or clang/clang++, parses the output as the build stage does,
// and checks an answer with real GNU patch and the same compiler again.
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { addedLineNumbers, directiveLineNumbers } from '../../src/build/apply.js';
import { classifyByPosition, firstError, judgeDiagnostics, parseDiagnostics } from '../../src/build/diagnostics.js';
import { runProcess } from '../../src/process.js';
import { projectWith } from '../diagnostics/compilers.js';
import type { RepairTask } from '../../src/formats/task.js';
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
export const COMPILERS: readonly CompilerFamily[] = ['gcc', 'clang'];

export interface Expectation {
  /** `builds`: this compiler accepts the generated patch, so there is nothing to repair. */
  expect: 'repaired' | 'declined' | 'builds';
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
  compilers?: Partial<Record<CompilerFamily, Expectation>>;
  /** The repair rewrites code, not only directives; the source then has a `main` that prints its result. */
  rewritesCode?: boolean;
}

/** What is expected under one compiler. */
export function expectationFor(spec: FixtureSpec, family: CompilerFamily): Expectation {
  return spec.compilers?.[family] ?? { expect: spec.expect, reason: spec.reason, rules: spec.rules, repaired: spec.repaired };
}

export interface Fixture {
  name: string;
  dir: string;
  spec: FixtureSpec;
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
  family: CompilerFamily;
  task: RepairTask;
  /** Absolute path of the original source in the scratch project. */
  sourcePath: string;
}

export async function prepareFixture(fixture: Fixture, scratch: string, family: CompilerFamily): Promise<Prepared> {
  const root = join(scratch, family, fixture.name);
  const sourcePath = join(root, 'project', fixture.spec.file);
  await mkdir(dirname(sourcePath), { recursive: true });
  await copyFile(join(fixture.dir, 'project', fixture.spec.file), sourcePath);
  const original = await readFile(sourcePath, 'utf8');
  const lines = original.split('\n');
  // Every directive is inserted before its start line (original numbering), indented like it.
  const sorted = [...fixture.spec.directives].sort((a, b) => b.start_line - a.start_line);
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
  await mkdir(dirname(join(workspace, fixture.spec.file)), { recursive: true });
  await writeFile(join(workspace, fixture.spec.file), patched);
  const compiled = await compile(workspace, fixture.spec.file, family, undefined, original);
  const build: BuildResult = {
    ok: compiled.ok,
    ...(compiled.ok ? {} : { failedAt: 'compile' as const }),
    output: compiled.output,
    diagnostics: compiled.diagnostics,
    durationMs: compiled.durationMs,
  };
  const suggestion: Suggestion = {
    id: '1',
    dir: patchDir,
    files: [{
      fileId: '1',
      patchPath: join(patchDir, '1.patch'),
      text: generated,
      source: { id: '1', path: sourcePath, relPath: fixture.spec.file },
    }],
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
    },
  };
}

const COMMANDS: Record<CompilerFamily, { c: string; cxx: string }> = { gcc: { c: 'gcc', cxx: 'g++' }, clang: { c: 'clang', cxx: 'clang++' } };

/**
 * Compiles like a project's compile.sh: from the project root, with the relative path. `output`
 * links an executable there instead of stopping at the object file. Given the `original` source,
 * it is judged as the build stage judges a patched build: a warning that the compiler ignored part
 * of a directive on a line added to the original fails it.
 */
export async function compile(
  root: string, relPath: string, family: CompilerFamily, output?: string, original?: string,
): Promise<{ ok: boolean; output: string; diagnostics: Diagnostic[]; durationMs: number }> {
  const compiler = relPath.endsWith('.c') ? COMMANDS[family].c : COMMANDS[family].cxx;
  const outcome = await runProcess({
    command: compiler,
    args: ['-fopenmp', ...(output === undefined ? ['-c', relPath, '-o', '/dev/null'] : [relPath, '-o', output])],
    cwd: root,
    env: { LC_ALL: 'C' },
    timeoutMs: 60_000,
  });
  if (outcome.kind === 'spawn-failed') throw new Error(`${compiler}: ${outcome.message}`);
  const printed = outcome.stdout + outcome.stderr;
  const patched = await readFile(join(root, relPath), 'utf8');
  const lines = original === undefined ? new Set<number>() : addedLineNumbers(original, patched);
  const diagnostics = classifyByPosition(
    judgeDiagnostics(parseDiagnostics(printed, projectWith(root, [relPath]), root), new Map([['1', lines]])),
    new Map([['1', directiveLineNumbers(patched, lines)]]),
  );
  const ok = outcome.kind === 'exited' && outcome.exitCode === 0 && firstError(diagnostics) === undefined;
  return { ok, output: printed, diagnostics, durationMs: outcome.durationMs };
}

export interface Checked {
  applied: boolean;
  patchOutput: string;
  compiled: boolean;
  compileOutput: string;
  repaired: string;
}

/** Applies each ```diff block of the answer with GNU patch (explicit target, as DiscoPoP does) and compiles. */
export async function applyAndCompile(prepared: Prepared, answer: string, scratch: string): Promise<Checked> {
  const blocks = [...answer.matchAll(/```diff\n([\s\S]*?)```/g)].map((match) => match[1]!);
  const dir = join(scratch, prepared.family, prepared.fixture.name, 'verify');
  const target = join(dir, prepared.fixture.spec.file);
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, prepared.task.sources.get('1')!);
  let patchOutput = '';
  for (const [index, block] of blocks.entries()) {
    const patchFile = join(dir, `answer-${index}.patch`);
    await writeFile(patchFile, block);
    const outcome = await runProcess({ command: 'patch', args: ['--batch', target, patchFile], cwd: dir });
    if (outcome.kind !== 'exited' || outcome.exitCode !== 0) {
      return { applied: false, patchOutput: outcome.kind === 'spawn-failed' ? outcome.message : outcome.stdout + outcome.stderr, compiled: false, compileOutput: '', repaired: '' };
    }
    patchOutput += outcome.stdout;
  }
  const compiled = await compile(dir, prepared.fixture.spec.file, prepared.family, undefined, prepared.task.sources.get('1')!);
  return { applied: blocks.length > 0, patchOutput, compiled: compiled.ok, compileOutput: compiled.output, repaired: await readFile(target, 'utf8') };
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
    const construct = match[1]!.split(/\s+/).filter((word) => /^(parallel|for|simd|task|taskloop|target|teams|distribute)$/.test(word)).join(' ');
    const next = lines.slice(row + 1).find((candidate) => candidate.trim() !== '' && !/^\s*\/\//.test(candidate)) ?? '';
    result.push({ construct, next: next.trim() });
  });
  return result;
}

/** The first `for` header at or after each generated directive's start line, in the original. */
export function expectedLoops(original: string, spec: FixtureSpec): { construct: string; next: string }[] {
  const lines = original.split('\n');
  return spec.directives.map((directive) => {
    const construct = renderGeneratorPragma(directive).replace(/^\s*#\s*pragma\s+omp\s+/, '').split(/\s+/)
      .filter((word) => /^(parallel|for|simd|task|taskloop|target|teams|distribute)$/.test(word)).join(' ');
    const isLoop = /\b(for|simd|taskloop|distribute)\b/.test(construct);
    const from = directive.start_line - 1;
    const next = isLoop
      ? lines.slice(from).find((line) => /^\s*for\b/.test(line))
      : lines.slice(from).find((line) => line.trim() !== '');
    return { construct, next: (next ?? '').trim() };
  });
}

/**
 * The program's output with 1 and with 4 threads, built from `source` (a fixture whose source
 * has a `main` printing its result). Null when it does not build or run.
 */
export async function runOutputs(dir: string, relPath: string, source: string, family: CompilerFamily): Promise<string[] | null> {
  const target = join(dir, relPath);
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, source);
  const built = await compile(dir, relPath, family, join(dir, 'program'));
  if (!built.ok) return null;
  const outputs: string[] = [];
  for (const threads of ['1', '4']) {
    const run = await runProcess({ command: join(dir, 'program'), args: [], cwd: dir, env: { OMP_NUM_THREADS: threads }, timeoutMs: 60_000 });
    if (run.kind !== 'exited' || run.exitCode !== 0) return null;
    outputs.push(run.stdout);
  }
  return outputs;
}
