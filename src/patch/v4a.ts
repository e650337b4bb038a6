// OpenAI's apply_patch format ("V4A"), in which GPT-class models are trained to edit:
//   *** Begin Patch / *** Update File: <path> / @@ <anchor line> / ' ', '-', '+' lines / *** End Patch
// Its hunks carry no line numbers; an `@@ <line>` anchor names a line of the file the hunk comes
// after, and the hunk's own lines say the rest. A repair only changes files of its patch set, so
// adding, deleting or renaming a file is refused with a reason.
import type { Hunk, HunkLine } from './model.js';
import { squeeze } from './similarity.js';

const OPERATION = /^\*\*\*\s*(Update|Add|Delete)\s+File:\s*(.*?)\s*$/i;
const MOVE = /^\*\*\*\s*Move\s+to:\s*(.*?)\s*$/i;
const END_OF_FILE = /^\*\*\*\s*End\s+of\s+File\s*$/i;
/** Models mixing the two formats write unified hunk headers inside an update: their start is a hint. */
const NUMBERED = /^@@+\s*-(\d+)/;

export interface V4aOperation {
  kind: 'update' | 'add' | 'delete';
  path: string;
}

export function v4aOperation(line: string): V4aOperation | null {
  const match = OPERATION.exec(line);
  if (match === null) return null;
  return { kind: match[1]!.toLowerCase() as V4aOperation['kind'], path: match[2]! };
}

export function refuseFileOperation(operation: V4aOperation): string {
  const verb = operation.kind === 'add' ? 'adds' : 'deletes';
  return `\`*** ${operation.kind === 'add' ? 'Add' : 'Delete'} File: ${operation.path}\`: a repair never ${verb} a file; change only files of this suggestion's patch set, with \`*** Update File:\``;
}

export interface V4aUpdate {
  hunks: Hunk[];
  /** The line after the update's last hunk line. */
  next: number;
  refusals: string[];
}

/** The hunks of one `*** Update File:` section, read from the line after it to the next operation, `*** End Patch` or prose. */
export function readV4aUpdate(lines: readonly string[], start: number, path: string): V4aUpdate {
  const refusals: string[] = [];
  let index = start;
  const move = MOVE.exec(lines[index] ?? '');
  if (move !== null) {
    refusals.push(
      `\`*** Move to: ${move[1]}\` (in the update of ${path}): a repair never renames a file; change it where it is`,
    );
    index++;
  }
  if (lines[index]?.startsWith('--- ') && lines[index + 1]?.startsWith('+++ ')) index += 2;

  const hunks: Hunk[] = [];
  let headers: string[] = [];
  let anchors: string[] = [];
  let oldStart: number | null = null;
  let body: HunkLine[] = [];
  const flush = () => {
    while (body.length > 0 && body.at(-1)!.kind === 'context' && body.at(-1)!.text === '') body.pop();
    if (body.length > 0) {
      hunks.push({
        oldStart,
        header: headers.length > 0 ? headers.join(' ') : '@@',
        lines: body,
        recounted: false,
        oldNoNewlineAtEnd: false,
        newNoNewlineAtEnd: false,
        ...(anchors.length > 0 ? { anchors } : {}),
      });
    }
    headers = [];
    anchors = [];
    oldStart = null;
    body = [];
  };
  for (; index < lines.length; index++) {
    const raw = lines[index]!;
    if (raw.startsWith('@@')) {
      if (body.length > 0) flush();
      headers.push(raw.trim());
      const numbered = NUMBERED.exec(raw);
      const anchor = raw.replace(/^@@+\s?/, '').replace(/\s*@@+\s*$/, '');
      if (numbered !== null) oldStart = Number(numbered[1]);
      else if (anchor.trim() !== '') anchors.push(anchor);
      continue;
    }
    if (END_OF_FILE.test(raw)) {
      flush();
      continue;
    }
    if (raw.trim() === '') {
      // An empty line is an empty context line when the hunk goes on after it, a separator otherwise.
      if (hunkGoesOn(lines, index + 1)) body.push({ kind: 'context', text: '' });
      continue;
    }
    const line = prefixedHunkLine(raw);
    if (line === null) break;
    body.push(line);
  }
  flush();
  return { hunks, next: index, refusals };
}

/** A hunk line by its one-character prefix, as unified diffs and V4A both write it; null for any other line. */
export function prefixedHunkLine(raw: string): HunkLine | null {
  switch (raw[0]) {
    case ' ':
      return { kind: 'context', text: raw.slice(1) };
    case '-':
      return { kind: 'remove', text: raw.slice(1) };
    case '+':
      return { kind: 'add', text: raw.slice(1) };
    case '\t':
      // A context line whose leading space an editor dropped.
      return { kind: 'context', text: raw };
    default:
      return null;
  }
}

function hunkGoesOn(lines: readonly string[], from: number): boolean {
  for (let index = from; index < lines.length; index++) {
    const raw = lines[index]!;
    if (raw.trim() !== '') return prefixedHunkLine(raw) !== null;
  }
  return false;
}

export interface AnchorFloor {
  /** The first line the hunk may start at. */
  floor: number;
  /** Anchors that pinned nothing, each with why; said when the hunk then fails. */
  passedOver: string[];
}

/**
 * Where a hunk with anchors may start: below the last anchor, each looked for after the one
 * before it. Lines compare without whitespace (models re-space a signature, as they re-space
 * context lines); the first such line below is the anchor, as in V4A. Failing that, an anchor may
 * be part of one longer line (models shorten a signature), but only of exactly one: a short
 * anchor inside several lines would pin the hunk below an unrelated one. An anchor that pins
 * nothing is passed over: the hunk's own lines still locate it.
 */
export function belowAnchors(squeezedLines: readonly string[], anchors: readonly string[], from: number): AnchorFloor {
  let floor = from;
  let searchFrom = from;
  const passedOver: string[] = [];
  for (const anchor of anchors) {
    const wanted = squeeze(anchor);
    let at = squeezedLines.findIndex((line, index) => index >= searchFrom && line === wanted);
    if (at < 0 && wanted.length >= 3) {
      const containing = squeezedLines.flatMap((line, index) =>
        index >= searchFrom && line.includes(wanted) ? [index] : [],
      );
      if (containing.length === 1) at = containing[0]!;
      else if (containing.length > 1)
        passedOver.push(
          `its anchor \`@@ ${anchor.trim()}\` is part of ${containing.length} lines (${lineNumbers(containing)}), so it names none of them`,
        );
    }
    if (at < 0) continue;
    // The anchor line itself may open the hunk: models often repeat it as the first context line.
    floor = at;
    searchFrom = at + 1;
  }
  return { floor, passedOver };
}

function lineNumbers(indexes: readonly number[]): string {
  const shown = indexes
    .slice(0, 5)
    .map((index) => index + 1)
    .join(', ');
  return indexes.length > 5 ? `lines ${shown}, …` : `lines ${shown}`;
}
