// DiscoPoP's files as patch-repair reads them (formats.md §1): only the parts it relies on are
// constrained, so that other DiscoPoP versions' extra fields pass through.
import { z } from 'zod';
import { HOTNESS } from './types.js';

// explorer/patterns.json and the optimizer's and merger's files of the same schema (§1.3). do_all
// and reduction become `parallel for` code, so they are validated field by field; the other types
// vary between DiscoPoP versions and are only read for their id and line range.
const LineRef = z.string().regex(/^\d+:\d+$/, 'expected "<file id>:<line>"');
const Names = z.array(z.string());

export const LoopPatternSchema = z.looseObject({
  pattern_id: z.number().int().nonnegative(),
  start_line: LineRef,
  end_line: LineRef,
  pragma: z.string().optional(),
  first_private: Names,
  private: Names,
  last_private: Names,
  shared: Names,
  reduction: Names,
  collapse_level: z.number().int().positive().optional(),
});

export const LocatedPatternSchema = z.looseObject({
  pattern_id: z.number().int().nonnegative(),
  start_line: LineRef,
  end_line: LineRef,
});

export const PatternsFileSchema = z.looseObject({
  version: z.string().optional(),
  patterns: z
    .looseObject({
      do_all: z.array(LoopPatternSchema).optional(),
      reduction: z.array(LoopPatternSchema).optional(),
    })
    .catchall(z.unknown()),
});

// hotspot_detection/Hotspots.json (§1.9).
export const HotspotRegionSchema = z.looseObject({
  typ: z.enum(['FUNCTION', 'LOOP']),
  fid: z.number().int().nonnegative(),
  lineNum: z.number().int().nonnegative(),
  name: z.string(),
  hotness: z.enum(HOTNESS),
});

/** DiscoPoP's loader reads every top-level key as a list of regions; the analyzer writes `code_regions`. */
export const HotspotsFileSchema = z.record(z.string(), z.array(HotspotRegionSchema));

// patch_applicator/applied_suggestions.json (§1.6).
export const AppliedSuggestionsSchema = z.looseObject({
  // DiscoPoP's own tests write integer ids ({"applied": [3]}); both spellings name the same suggestion.
  applied: z.array(
    z.union([z.string(), z.number().int().nonnegative().transform(String)], {
      error: 'expected a suggestion id, e.g. "3" or 3',
    }),
  ),
});

// project/configs/<name>/par_settings.json and seq_settings.json (§1.8).
/** Values become environment variables of compile.sh, so they must be strings. */
export const SettingsFileSchema = z.record(
  z.string(),
  z.string({ error: 'expected a string (settings become environment variables)' }),
);

export const SeqSettingsSchema = SettingsFileSchema.and(z.looseObject({ CFLAGS: z.string(), CXXFLAGS: z.string() }));
