// Applies a suggestion's patch set in a workspace with GNU patch, the engine DiscoPoP's applicator
// uses (`patch <target> <patch>`), so line drift and imperfect context are tolerated exactly as
// they are there. Unlike the applicator it runs non-interactively and leaves no .orig/.rej behind.
import { lstat, mkdir, readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { encodeText } from '../bytes.js';
import { describeOutcome, runProcess } from '../process.js';
import { compareIds, type DotDiscopop, type PatchSet } from '../formats/types.js';
import { align, isOmpPragma } from '../patch/index.js';
import type { AddedDirectives, AddedLines } from './diagnostics.js';

export type ApplyOutcome =
  | { ok: true; changed: string[]; added: AddedLines; directives: AddedDirectives; output: string }
  | { ok: false; output: string; failures: ApplyFailure[] };

export interface ApplyFailure {
  fileId: string;
  relPath: string | null;
  /** The line of patch's output that says why, for tables. */
  reason: string;
}

export interface ApplyRequest {
  dp: DotDiscopop;
  patchSet: PatchSet;
  workspaceRoot: string;
  /** Where the patch texts are written for GNU patch to read; outside the workspace tree. */
  patchDir: string;
  timeoutMs: number;
  signal: AbortSignal;
}

/**
 * `--batch` answers every question with its default and `--forward` refuses patches that look
 * reversed instead of asking, `-r -` discards rejects, `--no-backup-if-mismatch` keeps `.orig`
 * files away, and closed stdin means nothing can wait for a terminal. Every file of the set is
 * tried, so the output names all files that do not apply, not just the first.
 */
export async function patchWorkspace(request: ApplyRequest): Promise<ApplyOutcome> {
  const { dp, workspaceRoot, signal } = request;
  await mkdir(request.patchDir, { recursive: true });
  const changed: string[] = [];
  const added = new Map<string, Set<number>>();
  const directives = new Map<string, Map<number, string>>();
  const failures: ApplyFailure[] = [];
  const output: string[] = [];
  const deadline = Date.now() + request.timeoutMs;
  for (const [fileId, text] of [...request.patchSet].sort(([a], [b]) => compareIds(a, b))) {
    // A zero-byte patch is "applied" by DiscoPoP without any change.
    if (text.length === 0) continue;
    const target = await resolveTarget(dp, fileId, workspaceRoot);
    if (!target.ok) {
      output.push(target.reason);
      failures.push({ fileId, relPath: null, reason: target.reason });
      continue;
    }
    const patchPath = join(request.patchDir, `${fileId}.patch`);
    await writeFile(patchPath, encodeText(text));
    const before = await readFile(join(workspaceRoot, target.relPath), 'utf8');
    const outcome = await runProcess({
      command: 'patch',
      args: ['--batch', '--forward', '--no-backup-if-mismatch', '-r', '-', target.relPath, patchPath],
      cwd: workspaceRoot,
      // Stable English wording: it is what the model and the error classes read.
      env: { LC_ALL: 'C' },
      timeoutMs: Math.max(1, deadline - Date.now()),
      signal,
    });
    if (outcome.kind === 'canceled') signal.throwIfAborted();
    const words = outcome.kind === 'spawn-failed' ? '' : outcome.stdout + outcome.stderr;
    output.push(words.trimEnd());
    if (outcome.kind === 'exited' && outcome.exitCode === 0) {
      changed.push(target.relPath);
      const after = await readFile(join(workspaceRoot, target.relPath), 'utf8');
      const lines = addedLineNumbers(before, after);
      added.set(fileId, lines);
      directives.set(fileId, addedDirectiveLines(after, lines));
      continue;
    }
    const reason =
      outcome.kind === 'exited'
        ? (firstReason(words) ?? `patch ${describeOutcome(outcome)}`)
        : `patch ${describeOutcome(outcome)}`;
    if (outcome.kind !== 'exited') output.push(reason);
    failures.push({ fileId, relPath: target.relPath, reason });
  }
  const text = output.filter((line) => line.length > 0).join('\n') + '\n';
  return failures.length === 0
    ? { ok: true, changed, added, directives, output: text }
    : { ok: false, output: text, failures };
}

/**
 * The lines (1-based) of `after` that the patch added or rewrote, found by comparing the file
 * before and after GNU patch: where the hunks landed (offset, fuzz) is whatever patch decided.
 */
export function addedLineNumbers(before: string, after: string): Set<number> {
  const lines = new Set<number>();
  align(before, after).lines.forEach((line, index) => {
    if (line.changed) lines.add(index + 1);
  });
  return lines;
}

/** Those of the `added` lines (1-based) of `after` that are `#pragma omp` lines, with their text. */
export function addedDirectiveLines(after: string, added: ReadonlySet<number>): Map<number, string> {
  const lines = after.split('\n');
  return new Map(
    [...added].flatMap((line) => (isOmpPragma(lines[line - 1] ?? '') ? [[line, lines[line - 1]!] as const] : [])),
  );
}

type Target = { ok: true; relPath: string } | { ok: false; reason: string };

async function resolveTarget(dp: DotDiscopop, fileId: string, workspaceRoot: string): Promise<Target> {
  const source = dp.files.get(fileId);
  if (!source) return { ok: false, reason: `file id ${fileId} is not in FileMapping.txt` };
  const rel = source.relPath;
  if (isAbsolute(rel) || rel.split('/').includes('..')) {
    return { ok: false, reason: `${source.path}: not inside the project root ${dp.projectRoot}` };
  }
  // The workspace's copy is a regular file unless the project has a link there; patching through
  // a link could write outside the workspace.
  const st = await lstat(join(workspaceRoot, rel)).catch(() => null);
  if (!st) return { ok: false, reason: `${rel}: no such file in the project` };
  if (!st.isFile()) return { ok: false, reason: `${rel}: not a regular file (a link or a folder); not patched` };
  return { ok: true, relPath: rel };
}

function firstReason(words: string): string | undefined {
  const lines = words.split('\n').map((line) => line.trim());
  return (
    lines.find((line) => /FAILED|malformed|garbage|Reversed|can't find file|No such file|\*\*\*\*/.test(line)) ??
    lines.find((line) => line.length > 0 && !line.startsWith('patching file') && !/^Hunk #\d+ succeeded/.test(line))
  );
}
