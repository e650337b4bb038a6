// The patch engine's in-memory shapes: a parsed unified diff, and what applying it found.

export type HunkLineKind = 'context' | 'remove' | 'add';

export interface HunkLine {
  kind: HunkLineKind;
  /** The line without its one-character prefix and without line terminator. */
  text: string;
}

export interface Hunk {
  /** Old-file start line the header declares (1-based as in `@@ -N`); null for `@@ @@`. */
  oldStart: number | null;
  /** The header line as written, for messages. */
  header: string;
  lines: HunkLine[];
  /** The header's counts disagreed with the body; the body was trusted. */
  recounted: boolean;
  /** `\ No newline at end of file` after the last old-side / new-side line. */
  oldNoNewlineAtEnd: boolean;
  newNoNewlineAtEnd: boolean;
  /**
   * Lines the hunk comes after, in order (V4A's `@@ <line>` anchors, which stand in for line
   * numbers): the hunk is looked for below the last of them that the file has.
   */
  anchors?: string[];
}

/** One file block of a unified diff. Paths are cleaned (no `a/`, timestamps or generator suffix). */
export interface FilePatch {
  oldPath: string | null;
  newPath: string | null;
  hunks: Hunk[];
  /** The file id of the DiscoPoP `===BEGIN PATCH <id>===` block it stood in: it names the file, not the paths. */
  markedFileId?: string;
}

export type HunkStatus = 'exact' | 'offset' | 'fuzzy' | 'already-applied' | 'ambiguous' | 'failed';

/** How well the old side of a hunk matches the file at one place. */
export interface ScoreParts {
  /** 1.0 for a hunk whose every line matches exactly. */
  score: number;
  exact: number;
  /** Equal once whitespace is ignored (indentation, trailing blanks). */
  loose: number;
  /** Similar text (a few characters differ). */
  near: number;
  mismatch: number;
  lines: number;
}

export interface HunkReport {
  /** 1-based position of the hunk in its file block. */
  index: number;
  header: string;
  status: HunkStatus;
  /** Where the hunk was looked for first (declared line shifted by the previous hunk's offset); 1-based. */
  declaredLine: number | null;
  /** Where it applied, or the best place found; 1-based. */
  bestLine: number | null;
  /** Every place that matched equally well, for an ambiguous hunk; 1-based. */
  candidates: number[];
  score: ScoreParts | null;
  /** The hunk's old side (context and removed lines). */
  expected: string[];
  /** What the file has at bestLine, line for line. */
  found: string[];
  /** One sentence: why it failed or how it applied. */
  detail: string;
  /** Lines of the file worth re-reading before the next try; 1-based, inclusive. */
  reread: { from: number; to: number } | null;
}

export interface FileApplyReport {
  /** File id of the patch set, once mapped; null when applied on its own. */
  fileId: string | null;
  /** The path the block named, for messages. */
  path: string | null;
  /** Every hunk applied (no hunk failed or was ambiguous), and at least one changed the file. */
  ok: boolean;
  /** Every hunk's change is already in the file: nothing to apply, nothing reversed. */
  alreadyApplied: boolean;
  /** The patched content when ok. */
  result: string | null;
  /**
   * The second reading: the content with the hunks' own text where a context line differs from the
   * file (the model's fix may be written there, even in a hunk that otherwise changes nothing).
   * Null when no context line of a located hunk differs, or a hunk failed.
   */
  hunkContextResult: string | null;
  hunks: HunkReport[];
}
