// The patch engine: pure functions from patch text and sources to values; only canonicalPatch
// runs a process (GNU diff).
export type { FileApplyReport, FilePatch, Hunk, HunkLine, HunkReport, HunkStatus, ScoreParts } from './model.js';
export { parsePatches, type ParsedPatches } from './parse.js';
export { trimmedLines, undoubledPrefixes } from './slips.js';
export { mapBlocks, mapToPatchSet, mergeBlocks, type MapOptions, type MapResult } from './map.js';
export { applyFilePatch } from './apply.js';
export { applyPatchSet, type HunkContextReading, type PatchSetRequest, type PatchSetResult } from './patch-set.js';
export { renderApplyFailure } from './failure.js';
export { canonicalPatch, type CanonicalRequest } from './canonical.js';
export {
  checkDirectivesKept,
  directivesAddedByPatch,
  directivesAddedTo,
  loopTargetsOfPatch,
  type DirectivesRequest,
  type DirectivesVerdict,
} from './directives.js';
export { switchedOffByClause } from './clause-changes.js';
export { align } from './alignment.js';
export { FUZZY_LADDER, FUZZY_MARGIN } from './locate.js';
export { FUZZY_GATE } from './score.js';
export * from './openmp.js';
