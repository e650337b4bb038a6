// Everything the review page shows, gathered from the .discopop folder: the replayed run, and per
// suggestion its generated patch set, its attempts and the patch to put beside the generated one.
import { isVerifiedRepair } from '../../formats/statuses.js';
import { readdir, readFile, realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { readFileMapping } from '../../discopop/file-mapping.js';
import { Problems } from '../../discopop/problems.js';
import type { SourceFile } from '../../formats/types.js';
import { isNotFound, readIfPresent } from '../../store/fs-atomic.js';
import { decodeBytes } from '../../bytes.js';
import { readAttemptsIn, type StoredAttempt } from '../../store/index.js';
import { lastRun, type RunFolder } from '../run-folder.js';
import { changedSince, type SinceKind } from '../since.js';
import { backupDir, safeName, suggestionDir } from '../../store/paths.js';
import type { SuggestionRecord } from '../../formats/results.js';
import { type Candidate, candidateOf } from '../candidate.js';
import { replayRun, type ReplayedRun } from '../run-replay.js';
import { repairChange, type ChangedFile, type RepairChange } from './repair-change.js';

export interface SuggestionReview {
  id: string;
  /** null: the run ended before the suggestion finished. */
  record: SuggestionRecord | null;
  generated: Map<string, string>;
  attempts: StoredAttempt[];
  /** The accepted patch set, else the last rejected one; null when no attempt produced a patch. */
  candidate: Candidate | null;
  /** What a verified repair changed; null for a suggestion without one. */
  change: RepairChange | null;
  /** What became of the run's write-back since, when the patch set on disk moved on. */
  since: SinceKind | null;
}

export interface ReviewData {
  replay: ReplayedRun;
  /** The run is one that later runs moved to history/ (report --run). */
  fromHistory: boolean;
  suggestions: SuggestionReview[];
}

export async function gatherReview(dotDir: string, folder: RunFolder = lastRun(dotDir)): Promise<ReviewData> {
  const replay = await replayRun(dotDir, folder.dir);
  const since = await changedSince(dotDir, replay.events, replay.results.run.started);
  const ids = [...replay.results.suggestions.map((r) => r.id), ...replay.unfinished];
  const sources = new SourceReader(dotDir, replay.results.run.options.projectRoot);
  const suggestions: SuggestionReview[] = [];
  for (const id of ids) {
    const attempts = await readAttemptsIn(join(folder.dir, 'attempts', safeName(id, 'suggestion id')));
    const record = replay.results.suggestions.find((r) => r.id === id) ?? null;
    const generated = await generatedPatches(dotDir, id);
    const candidate = candidateOf(attempts);
    const verified = record !== null && isVerifiedRepair(record) && candidate?.accepted === true;
    const change = verified
      ? repairChange(record, await changedFiles(record.changed_files, generated, candidate.patches, sources))
      : null;
    suggestions.push({ id, record, generated, attempts, candidate, change, since: since.get(id) ?? null });
  }
  return { replay, fromHistory: folder.dir !== lastRun(dotDir).dir, suggestions };
}

async function changedFiles(
  fileIds: readonly string[],
  generated: Map<string, string>,
  repaired: Map<string, string>,
  sources: SourceReader,
): Promise<ChangedFile[]> {
  const files: ChangedFile[] = [];
  for (const fileId of fileIds) {
    const patch = repaired.get(fileId);
    if (patch === undefined) continue;
    const file = await sources.file(fileId);
    files.push({
      fileId,
      relPath: file?.relPath ?? `file ${fileId}`,
      source: file ? await readSource(file.path) : null,
      generated: generated.get(fileId) ?? null,
      repaired: patch,
    });
  }
  return files;
}

/** The project's sources by FileMapping id, read once the first repaired suggestion needs them. */
class SourceReader {
  private mapping: Promise<Map<string, SourceFile> | null> | null = null;

  constructor(
    private readonly dotDir: string,
    private readonly projectRoot: unknown,
  ) {}

  async file(fileId: string): Promise<SourceFile | null> {
    this.mapping ??= this.readMapping();
    return (await this.mapping)?.get(fileId) ?? null;
  }

  private async readMapping(): Promise<Map<string, SourceFile> | null> {
    const dot = await realpath(this.dotDir);
    const root = typeof this.projectRoot === 'string' ? this.projectRoot : dirname(dot);
    // A mapping that cannot be read leaves the page with the patches alone; the run has long checked it.
    return (
      await readFileMapping({
        dotDir: dot,
        projectRoot: await realpath(root).catch(() => root),
        problems: new Problems(),
      })
    ).files;
  }
}

async function readSource(path: string): Promise<string | null> {
  const bytes = await readIfPresent(path);
  return bytes === null ? null : decodeBytes(bytes);
}

/** After a write-back the generated set is the backup; otherwise it is still in patch_generator/. */
async function generatedPatches(dotDir: string, id: string): Promise<Map<string, string>> {
  const backup = await readPatchDir(backupDir(dotDir, id));
  return backup ?? (await readPatchDir(suggestionDir(dotDir, id))) ?? new Map();
}

async function readPatchDir(dir: string): Promise<Map<string, string> | null> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
  const patches = new Map<string, string>();
  for (const name of names.filter((n) => n.endsWith('.patch')).sort(byNumberThenName)) {
    patches.set(name.slice(0, -'.patch'.length), await readFile(join(dir, name), 'utf8'));
  }
  return patches;
}

function byNumberThenName(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}
