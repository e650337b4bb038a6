// Values that cross stage boundaries. On-disk formats live beside their zod schemas; these are
// the in-memory shapes the stages hand each other.

/**
 * DiscoPoP's hotspot types, in its order: the `-ht` list reads `yes,no,maybe`, and when several
 * loops of one suggestion disagree the first of them in this order wins.
 */
export const HOTNESS = ['YES', 'NO', 'MAYBE'] as const;
export type Hotness = (typeof HOTNESS)[number];

/**
 * patch_generator/<this>/: where a write-back or restore stages its bytes (store/staging.ts); the
 * .discopop reader must not take it for a suggestion.
 */
export const STAGING_FOLDER = '.patch-repair-staging';

/** Suggestion and file ids: numeric ids in numeric order, anything else after them in text order. */
export function compareIds(a: string, b: string): number {
  const na = /^\d+$/.test(a) ? Number(a) : Number.NaN;
  const nb = /^\d+$/.test(b) ? Number(b) : Number.NaN;
  if (!Number.isNaN(na) && !Number.isNaN(nb)) return na - nb || a.localeCompare(b);
  if (!Number.isNaN(na)) return -1;
  if (!Number.isNaN(nb)) return 1;
  return a.localeCompare(b);
}

/** A source file of the project, as FileMapping.txt names it (relocated when the tree moved). */
export interface SourceFile {
  id: string;
  /** Absolute path under the current project root. */
  path: string;
  /** Path relative to the project root, with forward slashes. */
  relPath: string;
}

/** One `<file id>.patch` of a suggestion's patch set. */
export interface PatchFile {
  fileId: string;
  /** Absolute path of the .patch file inside patch_generator/<id>/. */
  patchPath: string;
  text: string;
  source: SourceFile;
}

/** DiscoPoP's findings for a suggestion, from explorer/patterns.json. */
export interface PatternInfo {
  type: string;
  patternId: number;
  fileId: string;
  startLine: number;
  endLine: number;
  pragma?: string;
  firstPrivate: string[];
  private: string[];
  lastPrivate: string[];
  shared: string[];
  reduction: string[];
  collapseLevel?: number;
  /** do_all's `scheduling_clause` ("static"), which the generator never writes into code. */
  scheduling?: string;
  /** `average_iteration_count`, when DiscoPoP measured one (not -1). */
  averageIterationCount?: number;
}

export interface Suggestion {
  /** The folder name under patch_generator/. */
  id: string;
  dir: string;
  /** Non-empty patch files, ordered by numeric file id. Empty list = nothing to build ("no patch"). */
  files: PatchFile[];
  /** Names of the folder's .patch files that belong to no mapped file id, left out of the set; absent when none. */
  ignoredFiles?: string[];
  pattern: PatternInfo | null;
  hotspot: Hotness | null;
}

export interface BuildConfig {
  name: string;
  /** Absolute path of project/configs/<name>/ in the user's tree. */
  dir: string;
  /** Absolute path of the compile.sh the builds run: the configuration's own, or the shared one (discopop/build-config.ts). */
  compileScript: string;
  /** Environment from par_settings.json, or derived in memory from seq_settings.json. */
  settings: Record<string, string>;
  settingsSource: 'par_settings.json' | 'seq_settings.json (derived)';
  /**
   * seq_settings.json when the suggestions build with a par_settings.json that is not derived from
   * it: --check-run's reference is then a build of its own. Undefined when the parallel settings
   * are seq_settings.json plus -fopenmp, whose build at one thread is the sequential program.
   */
  seqSettings?: Record<string, string>;
  /** Why seq_settings.json beside a valid par_settings.json could not be read; --check-run refuses with it. */
  seqSettingsProblem?: string;
  /**
   * formats.md §1.8. `per-configuration`: compile.sh and the settings in project/configs/<name>/,
   * run with that folder as working directory. `shared` (DiscoPoP's new_explorer): compile.sh and
   * seq_settings.json once in project/configs/ (a configuration's own compile.sh overrides), run
   * as `/bin/bash <script>` from the project root, par settings derived afresh every run.
   */
  layout: 'per-configuration' | 'shared';
}

/** A validated .discopop folder. */
export interface DotDiscopop {
  dotDir: string;
  projectRoot: string;
  files: Map<string, SourceFile>;
  /** Every suggestion folder, sorted by numeric id. */
  suggestions: Suggestion[];
  config: BuildConfig;
  applied: string[];
  hasHotspotData: boolean;
  /** Things the user should know that do not stop the run (relocated paths). */
  notices: string[];
}

/** A patch set as text per file id, e.g. the generated one or a canonical repair. */
export type PatchSet = ReadonlyMap<string, string>;

export {
  ERROR_CLASSES,
  isBuildFailure,
  type BuildResult,
  type Diagnostic,
  type DiagnosticNote,
  type ErrorClass,
} from './build-result.js';
