// Applies one file block to one source, hunk by hunk in order, all or nothing.
import type { FileApplyReport, FilePatch, Hunk, HunkReport } from './model.js';
import { FileView } from './file-view.js';
import { differingContext, differingPhrase, locateHunk, newSide, oldSide, type Located } from './locate.js';
import { belowAnchors } from './v4a.js';

interface SourceText {
  /** The text with LF line ends. */
  text: string;
  lines: string[];
  endsWithNewline: boolean;
  crlf: boolean;
}

function splitSource(source: string): SourceText {
  const crlf = source.includes('\r\n');
  const text = crlf ? source.replace(/\r\n/g, '\n') : source;
  const endsWithNewline = text.endsWith('\n');
  const lines = text.length === 0 ? [] : text.split('\n');
  if (endsWithNewline) lines.pop();
  return { text, lines, endsWithNewline, crlf };
}

interface Placement {
  hunk: Hunk;
  located: Located;
  start: number;
  /** File lines the hunk replaces. */
  span: number;
  /** Old-side indexes of context lines that differ from their file line (see differingContext). */
  differing: number[];
}

/** How many file lines a match covers: its old side, give or take a line a shaped match skipped. */
function coveredLines(located: Located, oldLength: number): number {
  if (located.alignment === null || located.start === null) return oldLength;
  const aligned = located.alignment.filter((line): line is number => line !== null);
  return aligned.length === 0 ? oldLength : Math.max(...aligned) - located.start + 1;
}

export function applyFilePatch(source: string, patch: FilePatch): FileApplyReport {
  const text = splitSource(source);
  const view = new FileView(text.lines);
  const reports: HunkReport[] = [];
  const placements: Placement[] = [];
  /** Hunks that change nothing as diffs but whose context differs from the file where they fit. */
  const contextOnly: Placement[] = [];
  let carried = 0;
  let minStart = 0;
  patch.hunks.forEach((hunk, index) => {
    const expected = oldSide(hunk);
    const replacement = newSide(hunk);
    const nominal = hunk.oldStart === null ? null : expected.length === 0 ? hunk.oldStart : hunk.oldStart - 1;
    const declared = nominal === null ? null : Math.max(0, nominal + carried);
    const thorough = !reports.some((report) => report.status === 'failed' || report.status === 'ambiguous');
    const anchored =
      hunk.anchors === undefined
        ? { floor: minStart, passedOver: [] }
        : belowAnchors(view.squeezed, hunk.anchors, minStart);
    const floor = anchored.floor;
    const request = { file: view, hunk, declared, minStart: floor, expected, replacement, thorough };
    const located = locateHunk(request);
    const span = located.status === 'already-applied' ? replacement.length : coveredLines(located, expected.length);
    const noOp = located.status === 'already-applied' && located.start === null;
    const reading = noOp ? locateHunk({ ...request, locateNoOp: true }) : null;
    const readingDiffers = reading !== null && reading.start !== null ? differingContext(reading, hunk) : [];
    if (reading !== null && readingDiffers.length > 0) {
      contextOnly.push({
        hunk,
        located: reading,
        start: reading.start!,
        span: coveredLines(reading, expected.length),
        differing: readingDiffers.map((line) => line.index),
      });
    }
    const report = hunkReport({
      index: index + 1,
      hunk,
      located,
      declared,
      nominal,
      lines: text.lines,
      expected,
      span,
    });
    const troubled = located.status === 'ambiguous' || located.status === 'failed';
    const explained =
      troubled && anchored.passedOver.length > 0
        ? { ...report, detail: [report.detail, ...anchored.passedOver].join('; ') }
        : report;
    reports.push(
      readingDiffers.length > 0
        ? {
            ...explained,
            detail: `${explained.detail}; it fits at line ${reading!.start! + 1} but ${differingPhrase(readingDiffers)}: kept the file's, its own offered as a second reading`,
          }
        : explained,
    );
    if (located.start === null || troubled) return;
    placements.push({
      hunk,
      located,
      start: located.start,
      span,
      differing: differingContext(located, hunk).map((line) => line.index),
    });
    minStart = located.start + span;
    if (nominal !== null) {
      const growth = located.status === 'already-applied' ? replacement.length - expected.length : 0;
      carried = located.start - nominal + growth;
    }
  });

  const failed = reports.some((report) => report.status === 'failed' || report.status === 'ambiguous');
  const alreadyApplied =
    !failed && reports.length > 0 && reports.every((report) => report.status === 'already-applied');
  const ok = !failed && !alreadyApplied && reports.length > 0;
  return {
    fileId: null,
    path: patch.oldPath ?? patch.newPath,
    ok,
    alreadyApplied,
    result: ok ? build(text, placements, false) : null,
    hunkContextResult: failed ? null : hunkContextReading(text, placements, contextOnly),
    hunks: reports,
  };
}

/**
 * The reading with the hunks' own context lines, when one differs; the no-op hunks' places join
 * the applied ones, and where they would overlap or break the order there is no such reading.
 */
function hunkContextReading(
  text: SourceText,
  placements: readonly Placement[],
  contextOnly: readonly Placement[],
): string | null {
  if (contextOnly.length === 0 && placements.every((placement) => placement.differing.length === 0)) return null;
  const all = [
    ...placements.filter((placement) => placement.located.status !== 'already-applied'),
    ...contextOnly,
  ].sort((a, b) => a.start - b.start);
  if (all.some((placement, index) => index > 0 && placement.start < all[index - 1]!.start + all[index - 1]!.span))
    return null;
  return build(text, all, true);
}

/** Untouched stretches are copied as whole slices of the text; only hunks are rebuilt line by line. */
function build(source: SourceText, placements: readonly Placement[], hunkContext: boolean): string {
  const pieces: string[] = [];
  let cursor = 0;
  let offset = 0;
  const advanceTo = (line: number) => {
    while (cursor < line) offset += source.lines[cursor++]!.length + 1;
  };
  let endsWithNewline = source.endsWithNewline;
  for (const { hunk, located, start, span, differing } of placements) {
    if (located.status === 'already-applied') continue;
    const from = offset;
    advanceTo(start);
    pieces.push(source.text.slice(from, offset));
    const replaced = replaceAt(
      source.lines,
      hunk,
      located.alignment ?? straight(start, span),
      located.levels !== null,
      new Set(hunkContext ? differing : []),
    );
    if (replaced.length > 0) pieces.push(`${replaced.join('\n')}\n`);
    advanceTo(start + span);
    if (cursor === source.lines.length && hunk.oldNoNewlineAtEnd !== hunk.newNoNewlineAtEnd) {
      endsWithNewline = !hunk.newNoNewlineAtEnd;
    }
  }
  pieces.push(source.text.slice(offset));
  let text = pieces.join('');
  // Every line was written with a newline; the last one keeps the file's (or the hunk's) ending.
  if (text.endsWith('\n') && !endsWithNewline) text = text.slice(0, -1);
  else if (!text.endsWith('\n') && endsWithNewline && text.length > 0) text += '\n';
  return source.crlf ? text.replace(/\n/g, '\r\n') : text;
}

function straight(start: number, length: number): number[] {
  return Array.from({ length }, (_, index) => start + index);
}

/**
 * Context keeps the file's text, except the `ownContext` lines (old-side indexes) of the second
 * reading, which are written like added lines; added lines follow the file's indentation when the
 * match was not exact. A file line the hunk left out goes before the added lines that precede the
 * next matched line, so a directive still lands directly above the statement it was written for.
 */
function replaceAt(
  lines: readonly string[],
  hunk: Hunk,
  alignment: readonly (number | null)[],
  reindentAdded: boolean,
  ownContext: ReadonlySet<number>,
): string[] {
  const out: string[] = [];
  let pending: string[] = [];
  let oldIndex = 0;
  let next = alignment.find((line) => line !== null) ?? 0;
  let previousPlaced = false;
  hunk.lines.forEach((line, position) => {
    if (line.kind === 'add') {
      pending.push(reindentAdded ? reindent(line.text, hunk, position, lines, alignment) : line.text);
      return;
    }
    const own = ownContext.has(oldIndex);
    const fileLine = alignment[oldIndex++];
    if (fileLine === null || fileLine === undefined) {
      // Added lines before a line that stands for nothing in the file follow the line above them.
      if (previousPlaced) {
        out.push(...pending);
        pending = [];
      }
      previousPlaced = false;
      return;
    }
    previousPlaced = true;
    while (next < fileLine) out.push(lines[next++]!);
    out.push(...pending);
    pending = [];
    if (line.kind === 'context')
      out.push(own ? reindent(line.text, hunk, position, lines, alignment) : lines[fileLine]!);
    next = fileLine + 1;
  });
  out.push(...pending);
  return out;
}

function reindent(
  added: string,
  hunk: Hunk,
  position: number,
  lines: readonly string[],
  alignment: readonly (number | null)[],
): string {
  const reference = indentReference(hunk, position, alignment);
  const fileLine = reference === null ? null : alignment[reference.oldIndex];
  if (reference === null || fileLine === null || fileLine === undefined) return added;
  const patchIndent = leading(reference.text);
  const fileIndent = leading(lines[fileLine]!);
  if (patchIndent === fileIndent) return added;
  const addedIndent = leading(added);
  const body = added.slice(addedIndent.length);
  if (addedIndent.startsWith(patchIndent)) return fileIndent + addedIndent.slice(patchIndent.length) + body;
  const shallower = patchIndent.length - addedIndent.length;
  return fileIndent.slice(0, Math.max(0, fileIndent.length - shallower)) + body;
}

/**
 * The nearest non-blank old-side line after the added line (the statement it precedes), else before
 * it; only lines that stand for a file line tell how the file indents.
 */
function indentReference(
  hunk: Hunk,
  position: number,
  alignment: readonly (number | null)[],
): { text: string; oldIndex: number } | null {
  const oldIndexes: number[] = [];
  let counter = 0;
  for (const line of hunk.lines) oldIndexes.push(line.kind === 'add' ? -1 : counter++);
  const usable = (index: number) =>
    hunk.lines[index]!.kind !== 'add' && hunk.lines[index]!.text.trim() !== '' && alignment[oldIndexes[index]!] != null;
  for (let index = position + 1; index < hunk.lines.length; index++) {
    if (usable(index)) return { text: hunk.lines[index]!.text, oldIndex: oldIndexes[index]! };
  }
  for (let index = position - 1; index >= 0; index--) {
    if (usable(index)) return { text: hunk.lines[index]!.text, oldIndex: oldIndexes[index]! };
  }
  return null;
}

function leading(line: string): string {
  return /^\s*/.exec(line)![0];
}

interface HunkReportRequest {
  index: number;
  hunk: Hunk;
  located: Located;
  declared: number | null;
  nominal: number | null;
  lines: readonly string[];
  expected: string[];
  /** Lines the hunk covers in the file: its old side, or its new side when already applied. */
  span: number;
}

function hunkReport(o: HunkReportRequest): HunkReport {
  const { index, hunk, located, declared, nominal, lines, expected, span } = o;
  const at = located.start ?? declared;
  const found = at === null ? [] : lines.slice(at, at + span);
  const troubled = located.status === 'failed' || located.status === 'ambiguous';
  const around = at ?? 0;
  return {
    index,
    header: hunk.header,
    status: located.status,
    declaredLine: declared === null ? null : declared + 1,
    bestLine: located.start === null ? null : located.start + 1,
    candidates: located.candidates.map((place) => place + 1),
    score: located.score,
    expected,
    found,
    detail:
      located.status === 'offset' && nominal !== null
        ? `${located.detail} (offset ${located.start! - nominal} lines)`
        : located.detail,
    reread:
      troubled && (at !== null || located.candidates.length > 0)
        ? rereadRange(located.candidates.length > 0 ? located.candidates : [around], span, lines.length)
        : null,
  };
}

function rereadRange(places: readonly number[], span: number, total: number): { from: number; to: number } {
  const from = Math.max(1, Math.min(...places) + 1 - 3);
  const to = Math.min(total, Math.max(...places) + span + 3);
  return { from, to: Math.max(from, to) };
}
