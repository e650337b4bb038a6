// Finds where one hunk belongs in a file: exact at the declared line, exact anywhere, already
// applied, whitespace-tolerant, then scored fuzzy matching. Equally good places are never
// guessed between, and a hunk that inserts a directive must keep the line after it intact.
import type { FileView } from './file-view.js';
import type { Hunk, HunkStatus, ScoreParts } from './model.js';
import { placeByRemovedLines } from './removed-anchor.js';
import { anchoredLines, Comparisons, FUZZY_GATE, gapShapes, scoreEverywhere, type Scored } from './score.js';
import { lineForms, squeeze, type LineMatch } from './similarity.js';

/** Windows around the declared line, nearest first. */
export const FUZZY_LADDER = [1, 2, 5, 10, 50, Infinity] as const;
/** Hunks with more old-side lines than this are not tried with a one-line gap (each gap is a shape to score). */
const MAX_GAP_SHAPE_LINES = 100;
/** Places whose scores differ by less than this match "equally well": too close to choose between. */
export const FUZZY_MARGIN = 0.1;

export interface Located {
  status: HunkStatus;
  /** 0-based start of the match (of the new side for already-applied). */
  start: number | null;
  candidates: number[];
  score: ScoreParts | null;
  /** Per old-side line, how it matched at `start` (fuzzy and tolerant matches only). */
  levels: LineMatch[] | null;
  /**
   * Per old-side line, the 0-based file line it stands for (null: a line the hunk has and the
   * file does not). Null for matches where old-side line i is simply file line start + i.
   */
  alignment: (number | null)[] | null;
  detail: string;
}

export interface LocateRequest {
  file: FileView;
  hunk: Hunk;
  /** 0-based index where the hunk should start, already shifted by earlier hunks; null if unknown. */
  declared: number | null;
  /** Hunks land in order: nothing before this index. */
  minStart: number;
  /**
   * False once an earlier hunk of the file failed: the file cannot apply any more, so the costly
   * rungs (one-line gaps, placing by removed lines) are skipped and the report says so.
   */
  thorough: boolean;
  /** oldSide(hunk) and newSide(hunk), computed once by the caller. */
  expected: readonly string[];
  replacement: readonly string[];
  /**
   * Locate a hunk that changes nothing too: its context lines may hold the model's fix, and the
   * reading with the hunk's own context lines needs the place.
   */
  locateNoOp?: boolean;
}

export function oldSide(hunk: Hunk): string[] {
  return hunk.lines.filter((line) => line.kind !== 'add').map((line) => line.text);
}

export function newSide(hunk: Hunk): string[] {
  return hunk.lines.filter((line) => line.kind !== 'remove').map((line) => line.text);
}

export function locateHunk(request: LocateRequest): Located {
  const { file, declared, minStart, expected, replacement } = request;
  const last = file.lines.length - expected.length;
  if (expected.length === 0) return locateContextless(request, replacement);
  // Far longer than the file: not written against this file, and costly to search.
  if (expected.length > 2 * file.lines.length + MAX_GAP_SHAPE_LINES) {
    return {
      status: 'failed',
      start: null,
      candidates: [],
      score: null,
      levels: null,
      alignment: null,
      detail: `its old side has ${expected.length} lines, the file only ${file.lines.length}`,
    };
  }
  if (
    !request.locateNoOp &&
    sameLines(expected, replacement) &&
    request.hunk.oldNoNewlineAtEnd === request.hunk.newNoNewlineAtEnd
  ) {
    return {
      status: 'already-applied',
      start: null,
      candidates: [],
      score: null,
      levels: null,
      alignment: null,
      detail: 'changes nothing (its old and new sides are the same lines)',
    };
  }

  if (declared !== null && declared >= minStart && declared <= last && matchesExactly(file, expected, declared)) {
    return found('exact', declared, 'matches exactly at the declared line');
  }
  if (declared !== null && declared >= minStart && matchesExactly(file, replacement, declared)) {
    return found('already-applied', declared, 'its change is already in the file at the declared line');
  }
  const exact = scanExact(file, expected, minStart);
  const applied = scanExact(file, replacement, minStart);
  if (exact.length > 0 && applied.length > 0) {
    return ambiguous(
      [...exact, ...applied].sort((a, b) => a - b),
      'could apply at one place while its change is already at another; it matches',
    );
  }
  if (exact.length === 1) return found('offset', exact[0]!, 'matches exactly away from the declared line');
  if (exact.length > 1) return ambiguous(exact, 'matches exactly');
  if (applied.length > 0)
    return found('already-applied', nearest(applied, declared), 'its change is already in the file');

  return locateFuzzy(request, expected, replacement);
}

function found(status: HunkStatus, start: number, detail: string): Located {
  return { status, start, candidates: [start], score: null, levels: null, alignment: null, detail };
}

function ambiguous(places: number[], how: string): Located {
  const shown = places
    .slice(0, 5)
    .map((place) => place + 1)
    .join(', ');
  return {
    status: 'ambiguous',
    start: null,
    candidates: places,
    score: null,
    levels: null,
    alignment: null,
    detail: `${how} at ${places.length} places (lines ${shown}${places.length > 5 ? ', …' : ''}) and the declared line is on none of them`,
  };
}

/** A hunk without context or removed lines can only go where its header says. */
function locateContextless(request: LocateRequest, replacement: readonly string[]): Located {
  const { file, declared, minStart } = request;
  if (declared === null || declared < minStart || declared > file.lines.length) {
    return {
      status: 'failed',
      start: null,
      candidates: [],
      score: null,
      levels: null,
      alignment: null,
      detail: 'has no context lines and no usable line number',
    };
  }
  if (matchesExactly(file, replacement, declared))
    return found('already-applied', declared, 'its lines are already in the file');
  return found('exact', declared, 'inserts at the declared line (no context to check)');
}

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((line, index) => line === b[index]);
}

function matchesExactly(file: FileView, expected: readonly string[], start: number): boolean {
  if (start < 0 || start + expected.length > file.lines.length) return false;
  for (let offset = 0; offset < expected.length; offset++) {
    if (file.lines[start + offset] !== expected[offset]) return false;
  }
  return true;
}

function scanExact(file: FileView, expected: readonly string[], minStart: number): number[] {
  const places: number[] = [];
  if (expected.length === 0) return places;
  for (let start = minStart; start + expected.length <= file.lines.length; start++) {
    if (file.lines[start] === expected[0] && matchesExactly(file, expected, start)) places.push(start);
  }
  return places;
}

function nearest(places: readonly number[], declared: number | null): number {
  if (declared === null) return places[0]!;
  return places.reduce((best, place) => (Math.abs(place - declared) < Math.abs(best - declared) ? place : best));
}

function locateFuzzy(request: LocateRequest, expected: readonly string[], replacement: readonly string[]): Located {
  const { file, hunk, declared, minStart } = request;
  const forms = expected.map(lineForms);
  const anchored = anchoredLines(hunk);
  // Invalid straight places are kept: the best of them is what a failure report shows.
  const comparisons = new Comparisons(file, forms);
  const scored = scoreEverywhere(request, forms, comparisons, anchored, [{ kind: 'straight' }], false);
  const squeezedReplacement = replacement.map(squeeze);
  const tolerant = scored.filter((entry) => entry.parts.near === 0 && entry.parts.mismatch === 0);
  // Old and new side matching at one start is a hunk that changes only whitespace: it applies there.
  const tolerantStarts = new Set(tolerant.map((entry) => entry.start));
  const appliedLoosely: number[] = [];
  for (let start = minStart; start + replacement.length <= file.lines.length; start++) {
    if (
      !tolerantStarts.has(start) &&
      squeezedReplacement.every((line, offset) => file.squeezed[start + offset] === line)
    )
      appliedLoosely.push(start);
  }
  if (tolerant.length > 0 && appliedLoosely.length > 0) {
    return ambiguous(
      [...tolerant.map((entry) => entry.start), ...appliedLoosely].sort((a, b) => a - b),
      'could apply at one place while its change is already at another (whitespace aside); it matches',
    );
  }
  if (tolerant.length > 0) return pick(tolerant, declared, 'matches once whitespace is ignored');
  if (appliedLoosely.length > 0) {
    return found(
      'already-applied',
      nearest(appliedLoosely, declared),
      'its change is already in the file (whitespace aside)',
    );
  }

  const valid = scored.filter((entry) => entry.valid);
  if (valid.length > 0) return noteDifferingContext(pick(valid, declared, 'matches approximately'), hunk);
  if (!request.thorough)
    return failedFuzzy(
      scored,
      ' (not searched further: an earlier hunk failed, and a file applies whole or not at all)',
    );
  // Only when no straight placement works: a context line left out or made up inside the hunk.
  // The shapes grow with the square of the hunk; a long hunk is placed by its removed lines instead.
  const shaped =
    expected.length > MAX_GAP_SHAPE_LINES
      ? []
      : scoreEverywhere(request, forms, comparisons, anchored, gapShapes(expected, anchored), true);
  const validShaped = shaped.filter((entry) => entry.valid);
  if (validShaped.length > 0)
    return noteDifferingContext(
      pick(validShaped, declared, 'matches approximately with one context line missing or extra'),
      hunk,
    );
  // Where the context does match somewhere (its removed lines differ there), that is the hunk's
  // place, and it does not apply; only a hunk whose context matches nowhere is placed by its
  // removed lines. Its line numbers are as much from memory as its context: they break no tie.
  const contextPlaces = scored.filter((entry) => entry.parts.score >= FUZZY_GATE).map((entry) => entry.start);
  const byRemoved = (placeByRemovedLines(file, hunk, forms, anchored, minStart) ?? []).filter(
    (placement) =>
      contextPlaces.length === 0 || contextPlaces.some((place) => Math.abs(place - placement.nominalStart) <= 1),
  );
  if (byRemoved.length > 0) {
    const located = pick(
      byRemoved.map((placement) => ({ ...placement, valid: true })),
      null,
      'matches by its removed lines, its context from memory,',
    );
    return noteDifferingContext(
      declared === null || located.start === null
        ? located
        : {
            ...located,
            detail: located.detail.replace(
              'away from the declared line',
              ladderPhrase(Math.abs(located.start - declared)),
            ),
          },
      hunk,
    );
  }
  return failedFuzzy(scored, '');
}

/** The ladder only names how far from the declared line a match was. */
function ladderPhrase(distance: number): string {
  const window = FUZZY_LADDER.find((width) => distance <= width)!;
  return window === Infinity ? 'away from the declared line' : `within ±${window} lines of the declared line`;
}

/** The best place found, for the failure report. */
function failedFuzzy(scored: readonly Scored[], why: string): Located {
  const best = scored.reduce<Scored | null>(
    (top, entry) => (top === null || entry.parts.score > top.parts.score ? entry : top),
    null,
  );
  return {
    status: 'failed',
    start: best?.start ?? null,
    candidates: [],
    score: best?.parts ?? null,
    levels: best?.levels ?? null,
    alignment: best?.alignment ?? null,
    detail:
      (best === null
        ? 'no place in the file resembles its context'
        : best.parts.score >= FUZZY_GATE
          ? 'the closest place differs in a line that must match exactly (a removed line, or the line right after an inserted directive)'
          : `the closest place scores ${best.parts.score.toFixed(2)}, below the gate ${FUZZY_GATE}`) + why,
  };
}

/**
 * The best-scoring place wins; a nearer place never beats a better one, since the hunk's text is
 * stronger evidence than its line number. Places within FUZZY_MARGIN of the best are equally good
 * and make the hunk ambiguous unless the declared line is one of them. The ladder only names how
 * far from the declared line the match was.
 */
function pick(entries: Scored[], declared: number | null, how: string): Located {
  const top = Math.max(...entries.map((entry) => entry.parts.score));
  // Several shapes can match at one start; they are one place, represented by its best shape.
  const byStart = new Map<number, Scored>();
  for (const entry of entries) {
    if (entry.parts.score <= top - FUZZY_MARGIN) continue;
    const kept = byStart.get(entry.start);
    if (kept === undefined || entry.parts.score > kept.parts.score) byStart.set(entry.start, entry);
  }
  const best = [...byStart.values()];
  const onDeclared = best.find((entry) => entry.start === declared && entry.parts.score === top);
  if (best.length > 1 && onDeclared === undefined) {
    return {
      ...ambiguous(
        best.map((entry) => entry.start),
        `${how} equally well`,
      ),
      score: best[0]!.parts,
    };
  }
  const winner = onDeclared ?? best[0]!;
  const where = ladderPhrase(declared === null ? Infinity : Math.abs(winner.start - declared));
  return {
    status: 'fuzzy',
    start: winner.start,
    candidates: [winner.start],
    score: winner.parts,
    levels: winner.levels,
    alignment: winner.alignment,
    detail: `${how} ${where} (score ${winner.parts.score.toFixed(2)})`,
  };
}

/** A context line that stands for a file line it differs from: its old-side index and that file line (0-based). */
export interface DifferingContext {
  index: number;
  fileLine: number;
}

/**
 * The context lines that stand for a file line they differ from (not only in whitespace) at a
 * fuzzy placement: where diff semantics keep the file's line, and where the model may have
 * written its fix.
 */
export function differingContext(located: Located, hunk: Hunk): DifferingContext[] {
  if (located.status !== 'fuzzy' || located.levels === null) return [];
  const kinds = oldSideKinds(hunk);
  const differing: DifferingContext[] = [];
  located.levels.forEach((level, index) => {
    if (kinds[index] !== 'context' || level === 'exact' || level === 'loose') return;
    const fileLine = located.alignment === null ? located.start! + index : located.alignment[index];
    if (fileLine !== null && fileLine !== undefined) differing.push({ index, fileLine });
  });
  return differing;
}

/** `context line 5 differs from the file` / `context lines 5, 9 differ from the file`, 1-based. */
export function differingPhrase(differing: readonly DifferingContext[]): string {
  const lines = differing.map((line) => line.fileLine + 1);
  return lines.length === 1
    ? `context line ${lines[0]} differs from the file`
    : `context lines ${lines.join(', ')} differ from the file`;
}

function oldSideKinds(hunk: Hunk): string[] {
  return hunk.lines.filter((line) => line.kind !== 'add').map((line) => line.kind);
}

/**
 * Diff semantics keep the file's line where a context line differs; the report says where that
 * happened, since the difference may be the model's fix written into a context line.
 */
function noteDifferingContext(located: Located, hunk: Hunk): Located {
  if (located.status !== 'fuzzy' || located.levels === null) return located;
  const kept = differingContext(located, hunk);
  const kinds = oldSideKinds(hunk);
  const unplaced =
    located.alignment === null
      ? 0
      : located.alignment.filter((line, index) => line === null && kinds[index] === 'context').length;
  const notes: string[] = [];
  if (kept.length > 0) notes.push(`${differingPhrase(kept)}: kept the file's line${kept.length > 1 ? 's' : ''}`);
  if (unplaced > 0)
    notes.push(`${unplaced} context line${unplaced > 1 ? 's' : ''} of the hunk not in the file: ignored`);
  return notes.length === 0 ? located : { ...located, detail: `${located.detail}; ${notes.join('; ')}` };
}
