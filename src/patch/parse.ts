// Reads unified diffs the way models and DiscoPoP write them. jsdiff's parsePatch throws when a
// header's counts disagree with its body and cannot read `@@ @@`, which is exactly what models
// produce, so the body is the authority here: hunks are recounted and the header only hints.
import type { FilePatch, Hunk, HunkLine } from './model.js';
import { prefixedHunkLine, readV4aUpdate, refuseFileOperation, v4aOperation } from './v4a.js';

export interface ParsedPatches {
  patches: FilePatch[];
  /** Things that were tolerated or could not be read, one sentence each. */
  problems: string[];
  /** What the answer asks for that no repair may do (add, delete or rename a file), one sentence each. */
  refusals: string[];
}

const GENERATOR_SUFFIX = '.discopop_patch_generator.temp';
/** `@@ -a,b +c,d @@`, also with a space after `+` (`+ 1,50`), and `@@ @@` without numbers. */
const HUNK_HEADER = /^@@+\s*(?:-(\d+)(?:,(\d+))?\s+\+\s*(\d+)(?:,(\d+))?\s*)?@@+/;
/**
 * `@@(48,30)-(48,31)`: a (line,column) range some models write instead of counts. Only the first
 * line is a usable hint; the body gives the counts.
 */
const RANGE_HEADER = /^@@\s*\((\d+),\s*\d+\)\s*-\s*\(/;
const FENCE = /^\s*(```|~~~)/;
/** DiscoPoP's answer contract: `===BEGIN PATCH <file_id>===` … `===END PATCH <file_id>===` around each file's diff. */
const MARKER = /^\s*={3,}\s*(BEGIN|END)\s+PATCH\s+(\d+)\s*={3,}\s*$/i;
const TIMESTAMP = /\s+\d{4}-\d\d-\d\d[ T]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:\s*[+-]\d{4}|\s*Z)?\s*$/;

export function parsePatches(text: string): ParsedPatches {
  const lines = text.includes('\r') ? text.split(/\r?\n/) : text.split('\n');
  const patches: FilePatch[] = [];
  const problems: string[] = [];
  const refusals: string[] = [];
  let current: FilePatch | null = null;
  /** The file id of the DiscoPoP block being read, null outside one. */
  let marked: string | null = null;
  let markedBlocks = 0;
  const open = (oldPath: string | null, newPath: string | null): FilePatch => {
    const patch: FilePatch = { oldPath, newPath, hunks: [], ...(marked === null ? {} : { markedFileId: marked }) };
    patches.push(patch);
    return patch;
  };
  let index = 0;
  while (index < lines.length) {
    const line = lines[index]!;
    const marker = line.startsWith('=') || line.startsWith(' ') ? MARKER.exec(line) : null;
    if (marker !== null) {
      const id = String(Number(marker[2]));
      if (marker[1]!.toUpperCase() === 'BEGIN') {
        marked = id;
        markedBlocks++;
      } else {
        if (marked !== null && marked !== id)
          refusals.push(
            `===END PATCH ${id}=== closes the block opened by ===BEGIN PATCH ${marked}===; open and close each file's block with its own file id`,
          );
        marked = null;
      }
      current = null;
      index++;
      continue;
    }
    const operation = line.startsWith('***') ? v4aOperation(line) : null;
    if (operation !== null) {
      current = null;
      if (operation.kind !== 'update') {
        refusals.push(refuseFileOperation(operation));
        index++;
        continue;
      }
      const path = cleanPath(operation.path, 'a/');
      const read = readV4aUpdate(lines, index + 1, operation.path);
      open(path, path).hunks.push(...read.hunks);
      refusals.push(...read.refusals);
      index = read.next;
      continue;
    }
    if (isFileHeader(lines, index)) {
      current = open(cleanPath(line.slice(4), 'a/'), cleanPath(lines[index + 1]!.slice(4), 'b/'));
      index += 2;
      continue;
    }
    const header = line.startsWith('@@') ? readHeader(line) : null;
    if (header) {
      if (current === null) current = open(null, null);
      const read = readHunk(lines, index, header);
      current.hunks.push(read.hunk);
      if (read.hunk.recounted) {
        problems.push(
          `hunk ${current.hunks.length} of ${describe(current)}: header ${read.hunk.header.trim()} disagrees with its body; recounted`,
        );
      }
      index = read.next;
      continue;
    }
    if (isFence(line)) current = null;
    index++;
  }
  // An answer in DiscoPoP's contract is read as DiscoPoP reads it: only its blocks count, so a
  // diff quoted in the prose around them (the generated patch, say) is no candidate.
  const inBlocks =
    markedBlocks === 0
      ? patches
      : patches.filter((patch) => {
          if (patch.markedFileId === undefined)
            problems.push(`${describe(patch)}: outside the ===BEGIN PATCH <file_id>=== blocks; ignored`);
          return patch.markedFileId !== undefined;
        });
  const withHunks = inBlocks.filter((patch) => {
    if (patch.hunks.length === 0) problems.push(`${describe(patch)}: file header without any hunk; ignored`);
    return patch.hunks.length > 0;
  });
  if (withHunks.length === 0) problems.push('no unified diff hunk (`@@ ... @@`) found');
  return { patches: withHunks, problems, refusals };
}

function readHeader(line: string): HunkHeader | null {
  const counted = HUNK_HEADER.exec(line);
  if (counted !== null) {
    if (counted[1] === undefined) return { oldStart: null, range: false, oldCount: null, newCount: null };
    return {
      oldStart: Number(counted[1]),
      range: false,
      oldCount: counted[2] === undefined ? 1 : Number(counted[2]),
      newCount: counted[4] === undefined ? 1 : Number(counted[4]),
    };
  }
  const range = RANGE_HEADER.exec(line);
  return range === null ? null : { oldStart: Number(range[1]), range: true, oldCount: null, newCount: null };
}

function isHunkHeader(line: string): boolean {
  return line.startsWith('@@') && readHeader(line) !== null;
}

/** Cheap first-character test before the regular expression: this runs on every line. */
function isFence(line: string): boolean {
  const first = line.trimStart()[0];
  return (first === '`' || first === '~') && FENCE.test(line);
}

function describe(patch: FilePatch): string {
  const path = patch.oldPath ?? patch.newPath;
  if (patch.markedFileId !== undefined)
    return `the block for file id ${patch.markedFileId}${path === null ? '' : ` (${path})`}`;
  return path ?? 'the block without file header';
}

function isFileHeader(lines: readonly string[], index: number): boolean {
  return lines[index]!.startsWith('--- ') && (lines[index + 1]?.startsWith('+++ ') ?? false);
}

/** Strips timestamps, quotes, the git prefix and the generator's temp suffix; /dev/null → null. */
export function cleanPath(raw: string, gitPrefix: 'a/' | 'b/'): string | null {
  let path = raw.includes('\t') ? raw.slice(0, raw.indexOf('\t')) : raw.replace(TIMESTAMP, '');
  path = path.trim();
  if (path.length >= 2 && path.startsWith('"') && path.endsWith('"')) path = path.slice(1, -1);
  if (path === '/dev/null' || path === '') return null;
  if (path.startsWith(gitPrefix)) path = path.slice(2);
  if (path.endsWith(GENERATOR_SUFFIX)) path = path.slice(0, -GENERATOR_SUFFIX.length);
  return path;
}

interface BodyLine {
  line: HunkLine | 'no-newline';
  raw: string;
}

/** What a hunk header declares; counts are null when it gives none. */
interface HunkHeader {
  oldStart: number | null;
  /** A (line,column) range: it names lines, not the gap between two lines an insertion goes into. */
  range: boolean;
  oldCount: number | null;
  newCount: number | null;
}

interface DeclaredCounts {
  oldStart: number;
  oldCount: number;
  newCount: number;
}

function readHunk(lines: readonly string[], start: number, header: HunkHeader): { hunk: Hunk; next: number } {
  const declared: DeclaredCounts | null =
    header.oldCount === null || header.newCount === null || header.oldStart === null
      ? null
      : { oldStart: header.oldStart, oldCount: header.oldCount, newCount: header.newCount };
  const body: BodyLine[] = [];
  let oldSeen = 0;
  let index = start + 1;
  for (; index < lines.length; index++) {
    const raw = lines[index]!;
    const countsUnmet = declared !== null && oldSeen < declared.oldCount;
    if (!countsUnmet && isFileHeader(lines, index)) break;
    const line = bodyLine(raw);
    if (line === null) break;
    if (line === 'blank') {
      if (!bodyContinuesAfter(lines, index + 1)) break;
      body.push({ line: { kind: 'context', text: '' }, raw });
    } else {
      body.push({ line, raw });
    }
    if (line === 'blank' || (line !== 'no-newline' && line.kind !== 'add')) oldSeen++;
  }
  const trimmed = fitToDeclaredCounts(body, lines, index, declared);
  return { hunk: toHunk(lines[start]!, trimmed.body, declared, header), next: trimmed.next };
}

/** One line of a hunk body, 'blank' for an empty line, null where the body ends. */
function bodyLine(raw: string): HunkLine | 'no-newline' | 'blank' | null {
  if (raw === '') return 'blank';
  if (isHunkHeader(raw) || isFence(raw)) return null;
  if (raw[0] === '\\') return 'no-newline';
  return prefixedHunkLine(raw);
}

/** An empty line is blank context only when more hunk lines follow it. */
function bodyContinuesAfter(lines: readonly string[], from: number): boolean {
  for (let index = from; index < lines.length; index++) {
    const raw = lines[index]!;
    if (raw === '') continue;
    if (isFileHeader(lines, index)) return false;
    const line = bodyLine(raw);
    return line !== null && line !== 'blank';
  }
  return false;
}

/**
 * Where the header's counts are met exactly at a blank line, the rest is prose after the diff
 * (a markdown list item starts with `- `), not more hunk; trailing blank lines the counts ask
 * for are blank context lines whose single space was trimmed.
 */
function fitToDeclaredCounts(
  body: BodyLine[],
  lines: readonly string[],
  next: number,
  declared: { oldCount: number; newCount: number } | null,
): { body: BodyLine[]; next: number } {
  if (declared === null) return { body, next };
  let oldCount = 0;
  let newCount = 0;
  for (let index = 0; index < body.length; index++) {
    if (oldCount === declared.oldCount && newCount === declared.newCount && body[index]!.raw === '') {
      return { body: body.slice(0, index), next: next - (body.length - index) };
    }
    const line = body[index]!.line;
    if (line === 'no-newline') continue;
    if (line.kind !== 'add') oldCount++;
    if (line.kind !== 'remove') newCount++;
  }
  let cursor = next;
  const extended = [...body];
  while (
    oldCount < declared.oldCount &&
    newCount < declared.newCount &&
    lines[cursor] === '' &&
    cursor < lines.length - 1
  ) {
    extended.push({ line: { kind: 'context', text: '' }, raw: '' });
    oldCount++;
    newCount++;
    cursor++;
  }
  return { body: extended, next: cursor };
}

function toHunk(header: string, body: BodyLine[], declared: DeclaredCounts | null, read: HunkHeader): Hunk {
  const hunkLines: HunkLine[] = [];
  let oldNoNewlineAtEnd = false;
  let newNoNewlineAtEnd = false;
  for (const { line } of body) {
    if (line !== 'no-newline') {
      hunkLines.push(line);
      continue;
    }
    const previous = hunkLines[hunkLines.length - 1];
    if (previous === undefined) continue;
    if (previous.kind !== 'add') oldNoNewlineAtEnd = true;
    if (previous.kind !== 'remove') newNoNewlineAtEnd = true;
  }
  const oldCount = hunkLines.filter((line) => line.kind !== 'add').length;
  const newCount = hunkLines.filter((line) => line.kind !== 'remove').length;
  return {
    oldStart: read.range && oldCount === 0 ? null : read.oldStart,
    header,
    lines: hunkLines,
    recounted: declared !== null && (declared.oldCount !== oldCount || declared.newCount !== newCount),
    oldNoNewlineAtEnd,
    newNoNewlineAtEnd,
  };
}
