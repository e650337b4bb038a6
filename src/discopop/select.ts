import { UsageError } from '../errors.js';
import type { DotDiscopop, Hotness, Suggestion } from '../formats/types.js';
import type { NotConsidered } from '../formats/results.js';

/**
 * The suggestions a run considers. `-s` ids win over the hotspot filter and may name suggestions
 * the hotspot data cannot classify; otherwise a suggestion is considered when its hotspot class is
 * one of `hotspotTypes` (unclassified ones never are).
 */
export function selectSuggestions(
  dp: DotDiscopop,
  o: { hotspotTypes: readonly Hotness[]; suggestions?: readonly string[] },
): Suggestion[] {
  if (o.suggestions === undefined) {
    return dp.suggestions.filter((s) => s.hotspot !== null && o.hotspotTypes.includes(s.hotspot));
  }
  const known = new Set(dp.suggestions.map((s) => s.id));
  const unknown = o.suggestions.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new UsageError(
      `--suggestions: no folder ${unknown.join(', ')} under ${dp.dotDir}/patch_generator/ (${describeIds([...known])})`,
    );
  }
  const wanted = new Set(o.suggestions);
  return dp.suggestions.filter((s) => wanted.has(s.id));
}

export const UNCLASSIFIED = 'unclassified (no hotspot entry)';
export const NOT_IN_S = 'not in -s';

/** The suggestions of `dp` a selection leaves out, each with the reason, in patch_generator/ order. */
export function notConsidered(
  dp: DotDiscopop,
  considered: readonly Suggestion[],
  o: { suggestions?: readonly string[] },
): NotConsidered[] {
  const taken = new Set(considered.map((s) => s.id));
  return dp.suggestions
    .filter((s) => !taken.has(s.id))
    .map((s) => ({
      id: s.id,
      reason: o.suggestions !== undefined ? NOT_IN_S : s.hotspot === null ? UNCLASSIFIED : `hotspot ${s.hotspot}`,
    }));
}

function describeIds(ids: string[]): string {
  if (ids.length === 0) return 'it holds no suggestion';
  const shown = ids.slice(0, 20).join(', ');
  return ids.length > 20 ? `existing: ${shown}, … (${ids.length} in all)` : `existing: ${shown}`;
}
