// Reads and validates a whole .discopop folder into one DotDiscopop value. Every problem found is
// collected first and reported together in one UsageError, one line each.
import { realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { UsageError } from '../errors.js';
import type { DotDiscopop, PatternInfo, Suggestion } from '../formats/types.js';
import { readApplied } from './applied.js';
import { readBuildConfig } from './build-config.js';
import { readFileMapping } from './file-mapping.js';
import { classifyHotspot, readLoopHotspots } from './hotspots.js';
import { checkDotDiscopopFolder } from './layout.js';
import { pathKind } from './path-kind.js';
import { readPatchSets } from './patch-sets.js';
import { readPatterns } from './patterns.js';
import { Problems } from './problems.js';

export { refuseIfApplied } from './applied.js';
export { notConsidered, selectSuggestions } from './select.js';
export { classifyHotspot } from './hotspots.js';
export { checkDotDiscopopFolder } from './layout.js';

/** `projectRoot` is --project-root; without it the project is the parent of the .discopop folder. */
export async function readDotDiscopop(
  dotDir: string,
  configName: string,
  projectRootOption?: string,
): Promise<DotDiscopop> {
  const layoutProblem = await checkDotDiscopopFolder(dotDir);
  if (layoutProblem !== null) throw new UsageError(layoutProblem);
  // FileMapping paths are real paths, so the root they are compared with must be one too.
  const dot = await realpath(dotDir);
  const projectRoot = projectRootOption === undefined ? dirname(dot) : await realpath(projectRootOption);
  const problems = new Problems();

  const [mapping, patterns, loops, applied, config] = await Promise.all([
    readFileMapping({ dotDir: dot, projectRoot, rootGiven: projectRootOption !== undefined, problems }),
    readPatterns({ dotDir: dot, problems }),
    readLoopHotspots({ dotDir: dot, problems }),
    readApplied({ dotDir: dot, problems }),
    readBuildConfig({ dotDir: dot, name: configName, problems }),
  ]);
  const folders = await readPatchSets({ dotDir: dot, files: mapping.files, problems });
  problems.throwIfAny();
  // Both readers report every reason they return nothing, so throwIfAny has already thrown.
  if (mapping.files === null || config === undefined) throw new Error('unusable input without a problem reported');
  const files = mapping.files;

  const suggestions: Suggestion[] = folders.map(({ ignoredLines: _lines, ...folder }) => {
    const pattern: PatternInfo | null = patterns.get(folder.id) ?? null;
    return { ...folder, pattern, hotspot: classifyHotspot(pattern, loops) };
  });
  const notices: string[] = [...folders.flatMap((folder) => folder.ignoredLines)];
  // Without patterns.json no suggestion has a line range, so the hotspot data places none of them.
  if (loops.length > 0 && (await pathKind(join(dot, 'explorer', 'patterns.json'))) === 'missing') {
    notices.push(
      `${join(dot, 'explorer', 'patterns.json')} is missing while hotspot_detection/Hotspots.json exists: every suggestion is therefore unclassified, and -ht leaves every unclassified one out; name the suggestions to check with -s`,
    );
  }
  if (mapping.relocatedFrom !== undefined) {
    notices.push(
      `FileMapping.txt records the project at ${mapping.relocatedFrom}; the same files exist under ${projectRoot}, so they are read from there`,
    );
  }

  return {
    dotDir: dot,
    projectRoot,
    files,
    suggestions,
    config,
    applied,
    hasHotspotData: loops.length > 0,
    notices,
  };
}
