// Turns what patch and compile.sh said into a BuildResult. Output is reported with the user's
// project root in place of the workspace path: that is where the user (and the model) looks, and
// it keeps results identical whichever worker built them.
import { realpathSync } from 'node:fs';
import { describeOutcome, type RunOutcome } from '../process.js';
import type { BuildResult, Diagnostic, DotDiscopop } from '../formats/types.js';
import type { ApplyFailure } from './apply.js';
import {
  classifyByPosition,
  classifyError,
  firstError,
  judgeDiagnostics,
  parseDiagnostics,
  type AddedDirectives,
  type AddedLines,
} from './diagnostics.js';

export function patchFailure(o: {
  dp: DotDiscopop;
  output: string;
  failures: ApplyFailure[];
  workspaceRoot: string;
  durationMs: number;
}): BuildResult {
  const diagnostics: Diagnostic[] = o.failures.map((failure) => ({
    file: failure.relPath ?? failure.fileId,
    fileId: failure.fileId,
    severity: 'error',
    message: failure.reason,
    errorClass: 'patch-does-not-apply',
    notes: [],
  }));
  const first = o.failures[0];
  return {
    ok: false,
    failedAt: 'patch',
    output: inProject(o.output, o.workspaceRoot, o.dp),
    diagnostics,
    errorClass: 'patch-does-not-apply',
    firstError: first ? `${first.relPath ?? `file ${first.fileId}`}: ${first.reason}` : 'patch failed',
    durationMs: o.durationMs,
  };
}

/**
 * `patchNotes`: what GNU patch said beyond "patching file" (offsets, fuzz), kept at the top of
 * the output because a hunk that landed elsewhere than intended explains many a compile error.
 * `added`: the lines the patch set added, where a warning that a directive was ignored fails the
 * build (judgeDiagnostics); none for the reference build. (The OpenMP probe's directive is
 * guarded by `_OPENMP`: a compiler that could ignore it never sees it.)
 */
export function compileResult(o: {
  dp: DotDiscopop;
  outcome: RunOutcome;
  workspaceRoot: string;
  timeoutMs: number;
  durationMs: number;
  patchNotes?: string;
  added?: AddedLines;
  /** The added `#pragma omp` lines and their text: what clang's "expected expression" below one means, which clause an error points into (classifyByPosition). */
  directives?: AddedDirectives;
}): BuildResult {
  const { outcome, dp, workspaceRoot } = o;
  const compiled = outcome.kind === 'spawn-failed' ? '' : outcome.stdout + outcome.stderr;
  const raw = (o.patchNotes ?? '') + compiled;
  const exitedZero = outcome.kind === 'exited' && outcome.exitCode === 0;
  const diagnostics =
    outcome.kind === 'timeout'
      ? []
      : classifyByPosition(
          judgeDiagnostics(parseDiagnostics(compiled, dp, workspaceRoot), o.added ?? new Map()),
          o.directives ?? new Map(),
        );
  const firstDiagnostic = firstError(diagnostics);
  if (exitedZero && firstDiagnostic === undefined) {
    return { ok: true, output: inProject(raw, workspaceRoot, dp), diagnostics: [], durationMs: o.durationMs };
  }
  if (outcome.kind === 'timeout') {
    const line = `compile.sh did not finish within ${Math.round(o.timeoutMs / 1000)} s and was stopped`;
    return {
      ok: false,
      failedAt: 'timeout',
      output: inProject(`${raw}\n${line}\n`, workspaceRoot, dp),
      diagnostics: [],
      errorClass: 'other',
      firstError: line,
      durationMs: o.durationMs,
    };
  }
  const fallback = firstErrorLine(compiled) ?? `compile.sh ${describeOutcome(outcome)}`;
  const firstLine = firstDiagnostic ? describeDiagnostic(firstDiagnostic) : inProject(fallback, workspaceRoot, dp);
  const output = outcome.kind === 'exited' ? raw : `${raw}\ncompile.sh ${describeOutcome(outcome)}\n`;
  return {
    ok: false,
    failedAt: 'compile',
    output: inProject(output, workspaceRoot, dp),
    diagnostics,
    errorClass: firstDiagnostic?.errorClass ?? classifyError(fallback),
    firstError: firstLine,
    durationMs: o.durationMs,
  };
}

export function describeDiagnostic(d: Diagnostic): string {
  const place = [d.file, d.line, d.column].filter((part) => part !== undefined).join(':');
  return `${place}: ${d.severity}: ${d.message}`;
}

/** The first line that reads like an error, for when no compiler diagnostic was recognised. */
function firstErrorLine(output: string): string | undefined {
  const lines = output
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  return lines.find((line) => /\berror\b/i.test(line)) ?? lines.at(-1);
}

/**
 * A line that names the user's own project path as well keeps the workspace path: there the build
 * is comparing the two (CMake's "CMakeCache.txt directory <workspace>/build is different than the
 * directory <project>/build where it was created"), and rewriting would make it claim that a path
 * differs from itself.
 */
export function inProject(text: string, workspaceRoot: string, dp: DotDiscopop): string {
  if (!text.includes(workspaceRoot)) return text;
  const userRoots = projectRootSpellings(dp.projectRoot);
  return text
    .split('\n')
    .map((line) =>
      userRoots.some((root) => namesPath(line, root)) ? line : line.split(workspaceRoot).join(dp.projectRoot),
    )
    .join('\n');
}

/** `root` itself or a path below it, not merely a longer name that starts the same. */
function namesPath(line: string, root: string): boolean {
  for (let at = line.indexOf(root); at >= 0; at = line.indexOf(root, at + 1)) {
    const next = line[at + root.length];
    if (next === undefined || !/[\w.-]/.test(next)) return true;
  }
  return false;
}

const spellings = new Map<string, string[]>();

function projectRootSpellings(projectRoot: string): string[] {
  let found = spellings.get(projectRoot);
  if (!found) {
    let real = projectRoot;
    try {
      real = realpathSync(projectRoot);
    } catch {
      // A project root that no longer resolves is only ever spelled as given.
    }
    found = [...new Set([projectRoot, real])];
    spellings.set(projectRoot, found);
  }
  return found;
}

/** Patch's output when it says more than which files it patched; empty otherwise. */
export function patchNotes(output: string): string {
  const lines = output.split('\n').filter((line) => line.trim().length > 0);
  return lines.some((line) => !line.startsWith('patching file ')) ? lines.join('\n') + '\n' : '';
}
