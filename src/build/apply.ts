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

/** Files patched at once: a confirmation build applies many suggestions' patch sets, one file each. */
const PARALLEL_FILES = 8;

/** One file of the set: what patch said, and the lines it added, or why it did not apply. */
type FileOutcome =
  | { ok: true; fileId: string; relPath: string; words: string; added: Set<number>; directives: Map<number, string> }
  | { ok: false; words: string[]; failure: ApplyFailure };

/**
 * `--batch` answers every question with its default and `--forward` refuses patches that look
 * reversed instead of asking, `-r -` discards rejects, `--no-backup-if-mismatch` keeps `.orig`
 * files away, and closed stdin means nothing can wait for a terminal. Every file of the set is
 * tried, so the output names all files that do not apply, not just the first; the files are
 * patched several at once (each is a file of its own), their words kept in the order of their ids.
 */
export async function patchWorkspace(request: ApplyRequest): Promise<ApplyOutcome> {
  await mkdir(request.patchDir, { recursive: true });
  const deadline = Date.now() + request.timeoutMs;
  // A zero-byte patch is "applied" by DiscoPoP without any change.
  const files = [...request.patchSet].filter(([, text]) => text.length > 0).sort(([a], [b]) => compareIds(a, b));
  const outcomes: FileOutcome[] = new Array(files.length);
  // Two ids of one file (FileMapping.txt naming it twice) are patched one after the other.
  const paths = files.map(([fileId]) => request.dp.files.get(fileId)?.relPath);
  const parallel = new Set(paths).size === paths.length ? PARALLEL_FILES : 1;
  let next = 0;
  const patchers = Array.from({ length: Math.min(parallel, files.length) }, async () => {
    while (next < files.length) {
      const at = next++;
      const [fileId, text] = files[at]!;
      outcomes[at] = await patchFile(request, fileId, text, deadline);
    }
  });
  await Promise.all(patchers);
  const changed: string[] = [];
  const added = new Map<string, Set<number>>();
  const directives = new Map<string, Map<number, string>>();
  const failures: ApplyFailure[] = [];
  const output: string[] = [];
  for (const outcome of outcomes) {
    if (outcome.ok) {
      output.push(outcome.words);
      changed.push(outcome.relPath);
      added.set(outcome.fileId, outcome.added);
      directives.set(outcome.fileId, outcome.directives);
    } else {
      output.push(...outcome.words);
      failures.push(outcome.failure);
    }
  }
  const text = output.filter((line) => line.length > 0).join('\n') + '\n';
  return failures.length === 0
    ? { ok: true, changed, added, directives, output: text }
    : { ok: false, output: text, failures };
}

async function patchFile(request: ApplyRequest, fileId: string, text: string, deadline: number): Promise<FileOutcome> {
  const { dp, workspaceRoot, signal } = request;
  const target = await resolveTarget(dp, fileId, workspaceRoot);
  if (!target.ok)
    return { ok: false, words: [target.reason], failure: { fileId, relPath: null, reason: target.reason } };
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
  if (outcome.kind === 'exited' && outcome.exitCode === 0) {
    const after = await readFile(join(workspaceRoot, target.relPath), 'utf8');
    const lines = addedLineNumbers(before, after);
    const directives = addedDirectiveLines(after, lines);
    return { ok: true, fileId, relPath: target.relPath, words: words.trimEnd(), added: lines, directives };
  }
  const reason =
    outcome.kind === 'exited'
      ? (firstReason(words) ?? `patch ${describeOutcome(outcome)}`)
      : `patch ${describeOutcome(outcome)}`;
  const said = outcome.kind === 'exited' ? [words.trimEnd()] : [words.trimEnd(), reason];
  return { ok: false, words: said, failure: { fileId, relPath: target.relPath, reason } };
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
