// What a run's builds depend on, digested before the run starts: the project tree entry by entry,
// compile.sh, settings and compiler, and each considered patch set. Every discovery build is
// recorded with its digest, run-state.json keeps them, and --resume compares them with the run it
// takes over. A run that neither repairs nor keeps a state to resume (--discover-only, nothing
// considered) needs none.
import { readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { buildInputs, suggestionBuildDigest } from '../build/index.js';
import type { RunOptions } from '../formats/run-options.js';
import { digestDir } from '../store/index.js';
import type { Preflight } from './preflight.js';

export interface RunInputs {
  tree: Readonly<Record<string, string>>;
  environment: Readonly<Record<string, string>>;
  /** The files in the project this process's stdout and stderr go to: their growth is the run's own doing. */
  outputs: readonly string[];
  /** The same inputs as run-state.json version 1 kept them (one digest). */
  version1: string;
  /** Digest of each considered patch set (a suggestion with a patch). */
  patchSets: ReadonlyMap<string, string>;
  /** Build digest of each considered suggestion with a patch. */
  digests: ReadonlyMap<string, string>;
}

export async function runInputs(options: RunOptions, pre: Preflight, signal: AbortSignal): Promise<RunInputs | null> {
  if (options.mode === 'discover-only' || pre.considered.length === 0) return null;
  const { tree, environment, version1 } = await buildInputs(pre.dp, {
    threads: options.threads,
    exclude: options.exclude,
    signal,
  });
  const patchSets = new Map<string, string>();
  const digests = new Map<string, string>();
  for (const suggestion of pre.considered) {
    if (suggestion.files.length === 0) continue;
    const patchSet = await digestDir(suggestion.dir);
    patchSets.set(suggestion.id, patchSet);
    digests.set(suggestion.id, suggestionBuildDigest(environment, patchSet));
  }
  return { tree, environment, outputs: await ownOutputFiles(pre.dp.projectRoot), version1, patchSets, digests };
}

/**
 * The files in the project that this process's stdout and stderr go to (`patch-repair … > run.log
 * 2>&1` from the project root), project-relative. Only Linux names them (/proc/self/fd); elsewhere
 * there are none.
 */
async function ownOutputFiles(projectRoot: string): Promise<string[]> {
  const root = await realpath(projectRoot);
  const files = new Set<string>();
  for (const fd of [1, 2]) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => null);
    if (target === null || !path.isAbsolute(target) || !(await stat(target).catch(() => null))?.isFile()) continue;
    const rel = path.relative(root, target);
    if (rel !== '' && rel.split(path.sep)[0] !== '..' && !path.isAbsolute(rel))
      files.add(rel.split(path.sep).join('/'));
  }
  return [...files];
}
