// hotspot_detection/Hotspots.json (formats.md §1.9) and the classification DiscoPoP's autotuner
// gives each suggestion (`get_patterns_by_hotspot_type`): only LOOP regions count, and a suggestion
// is the hottest class of any loop hotspot inside its line range.
import { join } from 'node:path';
import { HotspotsFileSchema } from '../formats/discopop.js';
import { HOTNESS, type Hotness } from '../formats/types.js';
import { readJsonFile } from './json-file.js';
import type { Problems } from './problems.js';

export interface LoopHotspot {
  fileId: string;
  line: number;
  hotness: Hotness;
}

/** The LOOP hotspots; an empty list means "no hotspot data" (file absent or without loops). */
export async function readLoopHotspots(o: { dotDir: string; problems: Problems }): Promise<LoopHotspot[]> {
  const file = join(o.dotDir, 'hotspot_detection', 'Hotspots.json');
  const read = await readJsonFile(file, HotspotsFileSchema, o.problems);
  if (read.kind !== 'ok') return [];
  return Object.values(read.value)
    .flat()
    .filter((region) => region.typ === 'LOOP')
    .map((region) => ({ fileId: String(region.fid), line: region.lineNum, hotness: region.hotness }));
}

/**
 * YES if a YES loop of the suggestion's file lies within its lines, else NO, else MAYBE, else
 * null (unclassified). Without hotspot data DiscoPoP treats every suggestion as YES, including
 * those without a patterns.json entry.
 */
export function classifyHotspot(
  pattern: { fileId: string; startLine: number; endLine: number } | null,
  loops: readonly LoopHotspot[],
): Hotness | null {
  if (loops.length === 0) return 'YES';
  if (pattern === null) return null;
  const inside = loops.filter(
    (loop) => loop.fileId === pattern.fileId && pattern.startLine <= loop.line && loop.line <= pattern.endLine,
  );
  return HOTNESS.find((hotness) => inside.some((loop) => loop.hotness === hotness)) ?? null;
}
