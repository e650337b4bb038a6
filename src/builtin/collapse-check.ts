// The static check of every `collapse(n)` a patch set adds, generated or repaired: it must cover n
// perfectly nested, rectangular loops (collapse-nest.ts). It runs whatever the compiler said,
// because clang 14 builds an imperfect nest and the program then computes wrong numbers; a finding
// is a diagnostic of class `collapse-not-nested` at the directive, which the `lower-collapse` rule
// resolves like the compiler's own words.
import { parseDirective } from '../patch/openmp.js';
import type { BuildResult, Diagnostic } from '../formats/types.js';
import { findAddedDirectives, type AddedDirective } from './added-directives.js';
import { collapsibleNest, type GccNest, type NestBreak } from './collapse-nest.js';
import { analyzeSite, type DirectiveSite } from './scope.js';
import { parseSource, type SyntaxTree } from './syntax.js';
import { parseTranslationUnit, preprocessedByGcc, type TranslationUnit } from './translation-unit.js';

/** One file of a patch set as the check reads it. */
interface CheckedFile {
  fileId: string;
  /** Project-relative path, as the finding names the file. */
  relPath: string;
  /** The file's patch (generated or canonical). */
  patch: string;
  /** The file with that patch applied. */
  patched: string;
  /** The patched file preprocessed with the build's compiler and flags, when that could be run. */
  translationUnit?: string | undefined;
}

/** Whether a patch adds a `collapse(n)` with n ≥ 2: only those are parsed. */
export function addsCollapse(patch: string): boolean {
  return /^\+\s*#\s*pragma\s+omp\b.*\bcollapse\s*\(\s*(?:[2-9]|\d\d)/m.test(patch);
}

/** A diagnostic for every added `collapse(n)` whose n loops are not perfectly nested and rectangular. */
export async function collapseFindings(files: readonly CheckedFile[]): Promise<Diagnostic[]> {
  const findings: Diagnostic[] = [];
  for (const file of files) {
    if (!addsCollapse(file.patch)) continue;
    const patched = file.patched.replace(/\r\n/g, '\n');
    const found = findAddedDirectives(file.patch.replace(/\r\n/g, '\n'), patched);
    // A patch whose directives cannot be located did not apply: the build says so already.
    if (!found.ok) continue;
    const lines = patched.split('\n');
    const tree = await parseSource(patched);
    const unit = file.translationUnit === undefined ? null : await parseTranslationUnit(file.translationUnit);
    // Only the unit says which compiler builds the file; gcc's own fault is looked for only then.
    const byGcc = file.translationUnit !== undefined && preprocessedByGcc(file.translationUnit);
    for (const added of found.directives) {
      const requested = Number(parseDirective(added.text)?.clauses.find((clause) => clause.name === 'collapse')?.args);
      if (!Number.isInteger(requested) || requested < 2) continue;
      const nest =
        (unit && nestInUnit(unit, added, requested, byGcc)) ?? nestInFile(tree, lines, added, requested, byGcc);
      if (nest === null || nest.stop === null) continue;
      const column = Math.max(0, lines[added.row]!.indexOf('collapse')) + 1;
      findings.push({
        file: file.relPath,
        fileId: file.fileId,
        line: added.row + 1,
        column,
        severity: 'error',
        message: findingText(requested, nest.stop),
        errorClass: 'collapse-not-nested',
        notes: [],
      });
    }
  }
  return findings;
}

/** A nest break with its rows as lines (1-based) of the patched file. */
interface Nest {
  stop:
    | (Omit<NestBreak, 'row' | 'outerRow' | 'innerRow'> & { line: number; outerLine: number; innerLine: number | null })
    | null;
}

/** The nest as the compiler sees it: loops or statements written by macros count. */
function nestInUnit(unit: TranslationUnit, added: AddedDirective, requested: number, byGcc: boolean): Nest | null {
  const row = unit.rowOf(added.row + added.lineCount + 1);
  if (row === null) return null;
  const site = analyzeSite(unit.tree, row);
  if (site.lookup.kind !== 'loop') return null;
  const { stop } = collapsibleNest(site.lookup.loop, unit.lines, requested, byGcc ? gccNest(site) : undefined);
  if (stop === null) return { stop: null };
  const line = unit.lineOf(stop.row);
  const outerLine = unit.lineOf(stop.outerRow);
  // A break inside a header's expansion has no line of the file: the file's own reading names it.
  if (line === null || outerLine === null) return null;
  return {
    stop: {
      kind: stop.kind,
      what: stop.what,
      line,
      outerLine,
      innerLine: stop.innerRow === null ? null : unit.lineOf(stop.innerRow),
    },
  };
}

function nestInFile(
  tree: SyntaxTree,
  lines: readonly string[],
  added: AddedDirective,
  requested: number,
  byGcc: boolean,
): Nest | null {
  const site = analyzeSite(tree, added.row + added.lineCount);
  if (site.lookup.kind !== 'loop') return null;
  const { stop } = collapsibleNest(site.lookup.loop, lines, requested, byGcc ? gccNest(site) : undefined);
  if (stop === null) return { stop: null };
  return {
    stop: {
      kind: stop.kind,
      what: stop.what,
      line: stop.row + 1,
      outerLine: stop.outerRow + 1,
      innerLine: stop.innerRow === null ? null : stop.innerRow + 1,
    },
  };
}

function gccNest(site: DirectiveSite): GccNest {
  return { typeOf: (name) => site.visible.get(name)?.typeText ?? null };
}

function findingText(requested: number, stop: NonNullable<Nest['stop']>): string {
  if (stop.kind === 'gcc-unsigned') {
    return `collapse(${requested}) over a triangular nest that gcc miscompiles: the inner loop at line ${stop.line} ${stop.what}; gcc 12 then skips some iterations and runs others twice with more than one thread (its fault with unsigned int indices; int indices or a lower collapse build right)`;
  }
  const rule = `OpenMP requires ${requested} perfectly nested loops; clang builds such a directive and the program computes other numbers`;
  if (stop.kind === 'bound') {
    return `collapse(${requested}) over loops OpenMP cannot collapse: at line ${stop.line} ${stop.what}, the index of the collapsed loop at line ${stop.outerLine} (OpenMP allows an outer index in an inner loop's bounds only as a * index + b, never in its step)`;
  }
  const inner = stop.innerLine === null ? 'no loop' : `the loop at line ${stop.innerLine}`;
  return `collapse(${requested}) over loops that are not perfectly nested: ${stop.what} at line ${stop.line} stands between the loop at line ${stop.outerLine} and ${inner} (${rule})`;
}

/**
 * The build as the run judges it: a build the compiler passed fails with the findings (`failedAt:
 * 'static-check'`); a failed build gets the findings the compiler did not already report for that
 * file, so gcc's own collapse error keeps today's path.
 */
export function withCollapseFindings(build: BuildResult, findings: readonly Diagnostic[]): BuildResult {
  if (findings.length === 0 || build.failedAt === 'patch' || build.failedAt === 'timeout') return build;
  const rendered = (d: Diagnostic) => `${d.file}:${d.line}:${d.column}: error: ${d.message}`;
  if (build.ok) {
    return {
      ...build,
      ok: false,
      failedAt: 'static-check',
      output: `${build.output}${build.output === '' || build.output.endsWith('\n') ? '' : '\n'}patch-repair's static check (the build passed):\n${findings.map(rendered).join('\n')}\n`,
      diagnostics: [...build.diagnostics, ...findings],
      errorClass: 'collapse-not-nested',
      firstError: rendered(findings[0]!),
    };
  }
  const reported = new Set(
    build.diagnostics.filter((d) => d.errorClass === 'collapse-not-nested').map((d) => d.fileId),
  );
  const fresh = findings.filter((d) => !reported.has(d.fileId));
  return fresh.length === 0 ? build : { ...build, diagnostics: [...build.diagnostics, ...fresh] };
}
