import { UsageError } from '../errors.js';
import type { DotDiscopop, Hotness, Suggestion } from '../formats/types.js';

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

function describeIds(ids: string[]): string {
  if (ids.length === 0) return 'it holds no suggestion';
  const shown = ids.slice(0, 20).join(', ');
  return ids.length > 20 ? `existing: ${shown}, … (${ids.length} in all)` : `existing: ${shown}`;
}
