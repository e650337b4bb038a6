// Preflight: read the .discopop folder, select the considered suggestions and refuse what must not run.
import { notConsidered, readDotDiscopop, refuseIfApplied, selectSuggestions } from '../discopop/index.js';
import { resolveBareClangInConfig } from '../build/bare-clang.js';
import { RefusedError } from '../errors.js';
import { loadPromptLadder, type PromptLadder } from '../repair/index.js';
import type { RunOptions } from '../formats/run-options.js';
import type { NotConsidered } from '../formats/results.js';
import type { DotDiscopop, Suggestion } from '../formats/types.js';
import { unwritableSuggestionFolders } from '../store/index.js';
import { readWrittenDigest, writtenNames } from '../store/backup.js';
import { readSet } from '../store/patch-set-files.js';

export interface Preflight {
  dp: DotDiscopop;
  considered: Suggestion[];
  /** The suggestions of patch_generator/ the selection left out, each with the reason. */
  notConsidered: NotConsidered[];
  /** null for --discover-only, which asks nobody. */
  ladder: PromptLadder | null;
  /** Suggestions whose patches are what an earlier repair wrote. */
  repairedEarlier: ReadonlySet<string>;
  /** The PATH the CLI started with: where compilers the settings do not place are found. */
  searchPath: string;
}

export async function preflight(options: RunOptions, env: NodeJS.ProcessEnv): Promise<Preflight> {
  const read = await readDotDiscopop(options.dotDir, options.config, options.projectRoot);
  const searchPath = env['PATH'] ?? '';
  // Resolved once here, so the builds, the OpenMP probe and the built-in repairer's -E agree.
  const bare = await resolveBareClangInConfig(read.config, searchPath);
  const dp = bare.notice === null ? read : { ...read, config: bare.config, notices: [bare.notice, ...read.notices] };
  refuseIfApplied(dp);
  const considered = selectSuggestions(dp, { hotspotTypes: options.hotspotTypes, suggestions: options.suggestions });
  const left = notConsidered(dp, considered, {
    ...(options.suggestions !== undefined && { suggestions: options.suggestions }),
  });
  if (options.mode === 'repair') await refuseUnwritable(options.dotDir, considered);
  // A broken --prompt-dir must stop the run before any build spends minutes.
  const ladder = options.mode === 'discover-only' ? null : await loadPromptLadder(options.promptDir, env);
  const repairedEarlier = await repairedEarlierIds(options.dotDir, considered);
  return { dp, considered, notConsidered: left, ladder, repairedEarlier, searchPath };
}

async function refuseUnwritable(dotDir: string, considered: readonly Suggestion[]): Promise<void> {
  const lines = await unwritableSuggestionFolders(
    dotDir,
    considered.filter((s) => s.files.length > 0).map((s) => s.id),
  );
  if (lines.length === 0) return;
  throw new RefusedError(
    [
      ...lines,
      'a verified repair could not be written back there; make the folders writable, or repair without writing with --dry-run',
    ].join('\n'),
  );
}

/** Suggestions whose patches are what an earlier repair wrote (backups/<id>.written matches). */
async function repairedEarlierIds(dotDir: string, considered: Suggestion[]): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const { id, dir } of considered) {
    if (writtenNames(await readWrittenDigest(dotDir, id), await readSet(dir))) ids.add(id);
  }
  return ids;
}
