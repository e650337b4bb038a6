// Which OpenMP directives a patch adds, and whether a candidate keeps those of the generated
// patch: same construct, directly above the same statement (its target), inside the blocks the patch
// inserted around it. Clauses may change.
import type { ClauseChange } from '../formats/results.js';
import type { FilePatch } from './model.js';
import { align, splitLines, type AlignedLine } from './alignment.js';
import { clauseChanges, switchedOffByClause } from './clause-changes.js';
import { isOmpPragma, joinContinuations, parseDirective, type Directive } from './openmp.js';
import {
  continuationEnd,
  endsInComment,
  loopAfter,
  statementAfter,
  switchedOff,
  withoutLiterals,
  type SwitchedOff,
} from './source-lines.js';

/** Every `#pragma omp` directive the patch adds, continuation lines joined. */
export function directivesAddedByPatch(patch: FilePatch): Directive[] {
  const directives: Directive[] = [];
  for (const hunk of patch.hunks) {
    const added = hunk.lines.filter((line) => line.kind === 'add').map((line) => line.text);
    for (let index = 0; index < added.length; index++) {
      if (!isOmpPragma(added[index]!)) continue;
      const end = continuationEnd(added, index);
      const directive = parseDirective(joinContinuations(added.slice(index, end + 1)));
      if (directive !== null) directives.push(directive);
      index = end;
    }
  }
  return directives;
}

/**
 * The loops the patch's loop directives govern (design.md, Directive identity), as 0-based
 * original lines, read from the hunks alone; a directive with no `for` loop after it in its block
 * adds none.
 */
export function loopTargetsOfPatch(patch: FilePatch, original: string): number[] {
  const lines = splitLines(original);
  const targets: number[] = [];
  for (const hunk of patch.hunks) {
    if (hunk.oldStart === null) continue;
    let oldLine = Math.max(0, hunk.oldStart - 1);
    for (const line of hunk.lines) {
      if (line.kind !== 'add') {
        oldLine++;
        continue;
      }
      const directive = isOmpPragma(line.text) ? parseDirective(line.text) : null;
      if (directive === null || !isLoopConstruct(directive.construct)) continue;
      const target = loopAfter(lines, oldLine);
      if (target !== null && !targets.includes(target)) targets.push(target);
    }
  }
  return targets;
}

/** The directives `content` adds to `original`, wherever they stand. */
export function directivesAddedTo(original: string, content: string): Directive[] {
  return addedDirectives(align(original, content).lines).map((placed) => placed.directive);
}

/** A directive a patch added, located in original-file terms. */
interface PlacedDirective {
  directive: Directive;
  text: string;
  /** Original line of its target (design.md, Directive identity); null if that statement is new. */
  target: number | null;
  targetText: string;
  /** The target is the first statement below the directive (blank and comment lines aside). */
  directlyAbove: boolean;
  /** Text of the first statement below the directive. */
  nextText: string;
  /** Original line right below the directive (a blank or comment line may precede the target). */
  below: number | null;
  /** The blocks the patch inserted that hold the directive, outermost first. */
  regions: InsertedBlock[];
}

/**
 * A block opened by a `{` line the patch inserted (DiscoPoP's task region: `parallel`, `single`,
 * `{`). It is identified by the original line of the first statement inside it, so the generated
 * patch's block and a candidate's are the same block when they open at the same place.
 */
interface InsertedBlock {
  key: string;
  /** The directive that governs the block, e.g. `#pragma omp single`; null when none stands above it. */
  opener: string | null;
  firstText: string;
  first: number | null;
}

function addedDirectives(lines: readonly AlignedLine[]): PlacedDirective[] {
  const found: PlacedDirective[] = [];
  const texts = lines.map((line) => line.text);
  const off = switchedOff(texts);
  const regions = insertedBlocks(lines, off);
  for (let index = 0; index < lines.length; index++) {
    if (!lines[index]!.changed || !isOmpPragma(texts[index]!) || off[index] !== null) continue;
    const enclosing = regions[index]!;
    const end = continuationEnd(texts, index);
    const text = joinContinuations(texts.slice(index, end + 1));
    const directive = parseDirective(text);
    index = end;
    if (directive === null) continue;
    // A comment opened at the end of the directive's line goes on below it.
    const inComment = endsInComment(texts[end]!, false);
    const next = statementAfter(texts, end + 1, inComment);
    const loop = isLoopConstruct(directive.construct) ? loopAfter(texts, end + 1, inComment) : null;
    // DiscoPoP closes a task region with a `}` it inserts before the last task's statement: a
    // directive standing on a closing brace the patch inserted means the statement after it.
    const pastBrace =
      loop === null && next !== null && texts[next]!.trim() === '}' && lines[next]!.original === null
        ? statementAfter(texts, next + 1)
        : null;
    const targetIndex = loop ?? pastBrace ?? next;
    found.push({
      directive,
      text: text.trim(),
      target: targetIndex === null ? null : lines[targetIndex]!.original,
      targetText: statementText(texts, targetIndex),
      directlyAbove: targetIndex === next,
      nextText: statementText(texts, next),
      below: lines[end + 1]?.original ?? null,
      regions: enclosing,
    });
  }
  return found;
}

/**
 * For each line, the blocks the patch inserted that hold it, outermost first. Braces are counted
 * outside literals, comments, switched-off groups and preprocessor lines; a block opens on a
 * changed line whose text is a lone `{`, as DiscoPoP writes a region's.
 */
function insertedBlocks(lines: readonly AlignedLine[], off: readonly SwitchedOff[]): InsertedBlock[][] {
  const texts = lines.map((line) => line.text);
  const open: (InsertedBlock | null)[] = [];
  const holding: InsertedBlock[][] = [];
  let enclosing: InsertedBlock[] = [];
  for (let index = 0; index < texts.length; index++) {
    holding.push(enclosing);
    const text = texts[index]!.trim();
    if (off[index] !== null || text.startsWith('#')) continue;
    for (const char of withoutLiterals(text)) {
      if (char === '{') open.push(lines[index]!.changed && text === '{' ? insertedBlock(lines, index) : null);
      else if (char === '}') open.pop();
      else continue;
      enclosing = open.filter((block) => block !== null);
    }
  }
  return holding;
}

function insertedBlock(lines: readonly AlignedLine[], brace: number): InsertedBlock {
  const texts = lines.map((line) => line.text);
  const first = statementAfter(texts, brace + 1);
  const original = first === null ? null : lines[first]!.original;
  let above = brace - 1;
  while (above >= 0 && texts[above]!.trim() === '') above--;
  const opener = above >= 0 && isOmpPragma(texts[above]!) ? texts[above]!.trim() : null;
  const firstText = statementText(texts, first);
  return { key: original === null ? `new: ${firstText}` : String(original), opener, firstText, first: original };
}

/** The blocks the generated patch put the directive in all hold the candidate's too. */
function staysInside(candidate: PlacedDirective, wanted: PlacedDirective): boolean {
  return wanted.regions.every((region) => candidate.regions.some((other) => other.key === region.key));
}

function statementText(texts: readonly string[], index: number | null): string {
  return index === null ? '(end of file)' : texts[index]!.trim();
}

const LOOP_WORDS = new Set(['for', 'do', 'simd', 'loop', 'taskloop', 'distribute']);

/** `declare simd` names a function, not a loop. */
function isLoopConstruct(construct: string): boolean {
  const words = construct.split(/\s+/);
  return words[0] !== 'declare' && words.some((word) => LOOP_WORDS.has(word));
}

export type DirectivesVerdict =
  { ok: true; changes: ClauseChange[]; nonDirectiveLinesChanged: boolean } | { ok: false; reason: string };

export interface DirectivesRequest {
  /** Unpatched source, the source with the generated patch, the source with the candidate. */
  original: string;
  generated: string;
  candidate: string;
  /** File id recorded in the clause changes. */
  fileId?: string;
}

export function checkDirectivesKept(o: DirectivesRequest): DirectivesVerdict {
  const expected = addedDirectives(align(o.original, o.generated).lines);
  const candidateAlignment = align(o.original, o.candidate);
  const offered = addedDirectives(candidateAlignment.lines);
  const changes: ClauseChange[] = [];
  const used = new Set<PlacedDirective>();
  for (const wanted of expected) {
    const governsTarget = (candidate: PlacedDirective) =>
      !used.has(candidate) &&
      candidate.directlyAbove &&
      sameTarget(candidate, wanted) &&
      candidate.directive.construct === wanted.directive.construct;
    const match = offered.find((candidate) => governsTarget(candidate) && staysInside(candidate, wanted));
    if (match === undefined) {
      const outside = offered.find(governsTarget);
      return {
        ok: false,
        reason:
          outside === undefined ? whyMissing(wanted, offered, candidateAlignment.lines) : leftRegion(wanted, outside),
      };
    }
    const off = switchedOffByClause(match.directive, wanted.directive);
    if (off !== null) return { ok: false, reason: `${directiveName(wanted)} ${off}` };
    used.add(match);
    changes.push(...clauseChanges(wanted, match, o.fileId ?? ''));
  }
  const directive = directiveLines(candidateAlignment.lines);
  const nonDirectiveLinesChanged =
    candidateAlignment.removed > 0 ||
    candidateAlignment.lines.some((line, index) => line.changed && !directive.has(index));
  return { ok: true, changes, nonDirectiveLinesChanged };
}

function sameTarget(a: PlacedDirective, b: PlacedDirective): boolean {
  return a.target !== null && b.target !== null
    ? a.target === b.target
    : a.target === b.target && a.targetText === b.targetText;
}

/** Indexes of `#pragma omp` lines and their continuation lines. */
function directiveLines(lines: readonly AlignedLine[]): Set<number> {
  const texts = lines.map((line) => line.text);
  const indexes = new Set<number>();
  for (let index = 0; index < texts.length; index++) {
    if (!isOmpPragma(texts[index]!)) continue;
    const end = continuationEnd(texts, index);
    for (let line = index; line <= end; line++) indexes.add(line);
    index = end;
  }
  return indexes;
}

function targetName(wanted: PlacedDirective): string {
  return `\`${wanted.targetText}\`${wanted.target === null ? '' : ` (line ${wanted.target + 1})`}`;
}

function directiveName(wanted: PlacedDirective): string {
  const forLoop = !wanted.directlyAbove && isLoopConstruct(wanted.directive.construct);
  return `the directive \`${wanted.text}\` ${forLoop ? 'for the loop' : 'above'} ${targetName(wanted)}`;
}

/**
 * Why a directive that governs its target is still not kept: it left a block the generated patch
 * made for it, so it no longer belongs to that region (a task moved below the region's closing
 * brace runs outside its `parallel`/`single`).
 */
function leftRegion(wanted: PlacedDirective, candidate: PlacedDirective): string {
  const region = wanted.regions.find((block) => !candidate.regions.some((other) => other.key === block.key))!;
  const opener = region.opener === null ? 'the block' : `the block \`${region.opener}\` governs`;
  const start = `\`${region.firstText}\`${region.first === null ? '' : ` (line ${region.first + 1})`}`;
  return `${directiveName(wanted)} was moved out of ${opener}, which the patch opens before ${start}; it must stay inside that block, or it no longer runs in that region: move the block's closing brace below the statement instead of moving the directive`;
}

function whyMissing(
  wanted: PlacedDirective,
  offered: readonly PlacedDirective[],
  candidate: readonly AlignedLine[],
): string {
  const where = targetName(wanted);
  const name = directiveName(wanted);
  const atTarget = offered.filter((other) => sameTarget(other, wanted));
  const sameConstruct = atTarget.find((other) => other.directive.construct === wanted.directive.construct);
  if (sameConstruct !== undefined) {
    return `${name} stands above \`${sameConstruct.nextText}\`; it must stand directly above its loop ${where} (blank and comment lines may sit between)`;
  }
  if (atTarget.length > 0) {
    return `${name} became \`${atTarget[0]!.directive.construct}\`: the construct \`${wanted.directive.construct}\` must stay; only its clauses may change`;
  }
  const elsewhere = offered.find((other) => other.directive.construct === wanted.directive.construct);
  if (elsewhere !== undefined) {
    return `${name} was moved above \`${elsewhere.targetText}\`${elsewhere.target === null ? '' : ` (line ${elsewhere.target + 1})`}, another statement; it must stay directly above ${where}`;
  }
  const texts = candidate.map((line) => line.text);
  const off = switchedOff(texts);
  const offPragma = candidate.findIndex(
    (line, index) => line.changed && off[index] !== null && off[index] !== 'comment' && isOmpPragma(line.text),
  );
  if (
    candidate.some((line, index) => line.changed && off[index] === 'comment' && isOmpPragma(line.text)) ||
    candidate.some((line) => line.changed && /^\s*(\/\/|\/\*).*#\s*pragma\s+omp/.test(line.text))
  ) {
    return `${name} was commented out; it must stay in effect (only its clauses may change)`;
  }
  if (offPragma >= 0)
    return `${name} is switched off by ${off[offPragma]}; it must stay in effect (only its clauses may change)`;
  return `${name} was dropped; it must stay (only its clauses may change)`;
}
