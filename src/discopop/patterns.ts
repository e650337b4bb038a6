// explorer/patterns.json (formats.md §1.3), then the optimizer's and the parallel-region merger's
// files of the same schema: the patch generator makes suggestion folders from all three (the GUI
// passes optimizer/patterns.json with -a), and an explorer id wins over a later file's. do_all and reduction are what the patch generator
// turns into `parallel for` code, so they are validated field by field; the other types (task,
// pipeline, geometric_decomposition, ...) vary between DiscoPoP versions and are only used for
// their id and line range when those are readable.
import { join } from 'node:path';
import type { z } from 'zod';
import { LocatedPatternSchema, type LoopPatternSchema, PatternsFileSchema } from '../formats/discopop.js';
import type { PatternInfo } from '../formats/types.js';
import { readJsonFile } from './json-file.js';
import type { Problems } from './problems.js';

const LOOP_TYPES = ['do_all', 'reduction'] as const;

/** Pattern information by suggestion id (`String(pattern_id)`); empty when the file is absent. */
export async function readPatterns(o: { dotDir: string; problems: Problems }): Promise<Map<string, PatternInfo>> {
  const byId = new Map<string, PatternInfo>();
  for (const file of PATTERN_FILES) {
    const read = await readJsonFile(join(o.dotDir, ...file), PatternsFileSchema, o.problems);
    if (read.kind === 'ok') addPatterns(byId, read.value.patterns);
  }
  return byId;
}

const PATTERN_FILES = [
  ['explorer', 'patterns.json'],
  ['optimizer', 'patterns.json'],
  ['parallel_region_merger', 'patterns.json'],
] as const;

function addPatterns(byId: Map<string, PatternInfo>, patterns: z.output<typeof PatternsFileSchema>['patterns']): void {
  for (const type of LOOP_TYPES) {
    for (const entry of patterns[type] ?? []) addFirst(byId, loopPattern(type, entry));
  }
  for (const [type, entries] of Object.entries(patterns)) {
    if ((LOOP_TYPES as readonly string[]).includes(type) || !Array.isArray(entries)) continue;
    for (const entry of entries) {
      const located = LocatedPatternSchema.safeParse(entry);
      if (located.success) addFirst(byId, otherPattern(type, located.data));
    }
  }
}

function addFirst(byId: Map<string, PatternInfo>, info: PatternInfo): void {
  const id = String(info.patternId);
  if (!byId.has(id)) byId.set(id, info);
}

function loopPattern(type: string, entry: z.output<typeof LoopPatternSchema>): PatternInfo {
  const info: PatternInfo = {
    ...location(type, entry),
    firstPrivate: entry.first_private,
    private: entry.private,
    lastPrivate: entry.last_private,
    shared: entry.shared,
    reduction: entry.reduction,
  };
  if (entry.pragma !== undefined) info.pragma = entry.pragma;
  if (entry.collapse_level !== undefined) info.collapseLevel = entry.collapse_level;
  // Only shown to the model, so a value of another shape in another DiscoPoP version is left out, not an error.
  const scheduling = entry['scheduling_clause'];
  if (typeof scheduling === 'string' && scheduling.trim() !== '') info.scheduling = scheduling.trim();
  const iterations = entry['average_iteration_count'];
  if (typeof iterations === 'number' && Number.isFinite(iterations) && iterations >= 0)
    info.averageIterationCount = iterations;
  return info;
}

function otherPattern(type: string, entry: z.output<typeof LocatedPatternSchema>): PatternInfo {
  const info: PatternInfo = {
    ...location(type, entry),
    firstPrivate: names(entry['first_private']),
    private: names(entry['private']),
    lastPrivate: names(entry['last_private']),
    shared: names(entry['shared']),
    reduction: names(entry['reduction']),
  };
  if (typeof entry['pragma'] === 'string') info.pragma = entry['pragma'];
  return info;
}

function location(type: string, entry: { pattern_id: number; start_line: string; end_line: string }) {
  const [fileId, startLine] = splitLineRef(entry.start_line);
  const [, endLine] = splitLineRef(entry.end_line);
  return { type, patternId: entry.pattern_id, fileId, startLine, endLine };
}

function splitLineRef(ref: string): [string, number] {
  const [fileId, line] = ref.split(':') as [string, string];
  return [fileId, Number(line)];
}

function names(value: unknown): string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : [];
}
