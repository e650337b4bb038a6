// Applies a candidate patch set all-or-none: to the unpatched sources first, and when that fails,
// as a change on top of the generated patch (models often write against the patched file). When
// both readings apply, the one that keeps every generated directive wins (design.md, Two readings
// of an answer): an answer that adds a declaration and leaves the directive's lines alone means
// the directive to stay. An answer that itself writes, removes or comments out an executable
// directive is about the directive and is read against the unpatched source, where it writes it.
// One that keeps no directive either way but shows the generated one as context is read on top.
import { applyFilePatch } from './apply.js';
import { checkDirectivesKept } from './directives.js';
import { renderApplyFailure } from './failure.js';
import type { FileApplyReport, FilePatch } from './model.js';

/**
 * The second reading of a candidate: the files a hunk of it fits with context lines that differ
 * from the file, written with the hunk's own lines (FileApplyReport.hunkContextResult).
 */
export interface HunkContextReading {
  basis: 'unpatched' | 'on-top';
  contents: Map<string, string>;
}

export type PatchSetResult =
  | {
      ok: true;
      basis: 'unpatched' | 'on-top';
      contents: Map<string, string>;
      reports: FileApplyReport[];
      hunkContext: HunkContextReading | null;
    }
  | {
      ok: false;
      verdict: 'failed' | 'already-applied';
      reports: FileApplyReport[];
      text: string;
      hunkContext: HunkContextReading | null;
    };

export interface PatchSetRequest {
  /** Unpatched source text per file id. */
  sources: Map<string, string>;
  candidate: Map<string, FilePatch>;
  generated: Map<string, FilePatch>;
}

/** `contents` holds the files the candidate changes; the others keep their generated patch. */
export function applyPatchSet(o: PatchSetRequest): PatchSetResult {
  const direct = applyAll(o.sources, o.candidate);
  // An ambiguous hunk did match the unpatched sources, only at several places; reading it as a
  // change on top of the generated patch would just pick one of them by another route.
  const ambiguous = direct.reports.some((report) => report.hunks.some((hunk) => hunk.status === 'ambiguous'));
  const patched = ambiguous ? null : applyAll(o.sources, o.generated);
  const onTop = patched?.ok ? applyAll(withDefaults(patched.contents, o.sources), o.candidate) : null;
  if (direct.ok) {
    const onTopWins =
      onTop?.ok === true &&
      !writesExecutableDirective(o.candidate) &&
      !keepsDirectives(o.sources, patched!.contents, direct.contents) &&
      (keepsDirectives(o.sources, patched!.contents, onTop.contents) ||
        showsGeneratedDirective(o.candidate, o.generated));
    return onTopWins ? succeeded('on-top', onTop) : succeeded('unpatched', direct);
  }
  if (onTop?.ok) return succeeded('on-top', onTop);

  if (onTop !== null && onTop.reports.length > 0 && onTop.reports.every((report) => report.alreadyApplied)) {
    return {
      ok: false,
      verdict: 'already-applied',
      reports: onTop.reports,
      text: 'The patch is already contained in the generated patch: applied on top of it, it changes nothing. Change what the build error points at.',
      hunkContext: hunkContextReading('on-top', onTop.reports),
    };
  }
  // Explain the reading that got further: an answer written against the patched file fails
  // confusingly on the unpatched one.
  if (onTop !== null && appliedHunks(onTop.reports) > appliedHunks(direct.reports)) {
    const text = `Read as a change on top of the generated patch (it does not apply to the unpatched source either):\n${renderApplyFailure(onTop.reports)}`;
    return { ok: false, verdict: 'failed', reports: onTop.reports, text, hunkContext: null };
  }
  const text = renderApplyFailure(direct.reports);
  const note = onTop === null ? '' : '\nIt does not apply on top of the generated patch either.';
  const verdict =
    direct.reports.length > 0 && direct.reports.every((report) => report.alreadyApplied) ? 'already-applied' : 'failed';
  // Every file applied or changed nothing: a file whose hunks only rewrite context still has its second reading.
  const placed = direct.reports.length > 0 && direct.reports.every((report) => report.ok || report.alreadyApplied);
  return {
    ok: false,
    verdict,
    reports: direct.reports,
    text: text + note,
    hunkContext: placed ? hunkContextReading('unpatched', direct.reports) : null,
  };
}

function succeeded(basis: 'unpatched' | 'on-top', applied: AppliedAll): PatchSetResult {
  return {
    ok: true,
    basis,
    contents: applied.contents,
    reports: applied.reports,
    hunkContext: hunkContextReading(basis, applied.reports),
  };
}

/** Each file as the first reading changes it, or by its hunk-context reading where it has one; null when no file has. */
function hunkContextReading(
  basis: 'unpatched' | 'on-top',
  reports: readonly FileApplyReport[],
): HunkContextReading | null {
  if (!reports.some((report) => report.hunkContextResult !== null)) return null;
  const contents = new Map<string, string>();
  for (const report of reports) {
    const content = report.hunkContextResult ?? report.result;
    if (content !== null) contents.set(report.fileId!, content);
  }
  return { basis, contents };
}

/** `declare reduction`, `declare simd`, `threadprivate`, `requires`: declarations, not the directive of a loop. */
const EXECUTABLE_DIRECTIVE = /#\s*pragma\s+omp\s+(?!(?:declare|end\s+declare|threadprivate|requires)\b)/;

function writesExecutableDirective(candidate: Map<string, FilePatch>): boolean {
  return [...candidate.values()].some((patch) =>
    patch.hunks.some((hunk) =>
      hunk.lines.some((line) => line.kind !== 'context' && EXECUTABLE_DIRECTIVE.test(line.text)),
    ),
  );
}

/**
 * The answer holds a generated directive as a context line: it was written on top of the generated
 * patch. When neither reading keeps the directive (a block comment or `#if 0` wrapped around it),
 * judging it as written names what it did; read on the unpatched source it would just look dropped.
 */
function showsGeneratedDirective(candidate: Map<string, FilePatch>, generated: Map<string, FilePatch>): boolean {
  for (const [fileId, patch] of candidate) {
    const added = new Set(
      (generated.get(fileId)?.hunks ?? []).flatMap((hunk) =>
        hunk.lines
          .filter((line) => line.kind === 'add' && EXECUTABLE_DIRECTIVE.test(line.text))
          .map((line) => line.text.trim()),
      ),
    );
    if (patch.hunks.some((hunk) => hunk.lines.some((line) => line.kind === 'context' && added.has(line.text.trim()))))
      return true;
  }
  return false;
}

/** Every directive the generated patch adds is still added where it was meant, in every file. */
function keepsDirectives(
  sources: Map<string, string>,
  generated: Map<string, string>,
  candidate: Map<string, string>,
): boolean {
  for (const [fileId, generatedResult] of generated) {
    const original = sources.get(fileId);
    if (original === undefined) continue;
    if (
      !checkDirectivesKept({
        original,
        generated: generatedResult,
        candidate: candidate.get(fileId) ?? generatedResult,
      }).ok
    )
      return false;
  }
  return true;
}

function appliedHunks(reports: readonly FileApplyReport[]): number {
  return reports.reduce(
    (sum, report) =>
      sum +
      report.hunks.filter((hunk) => hunk.status === 'exact' || hunk.status === 'offset' || hunk.status === 'fuzzy')
        .length,
    0,
  );
}

function withDefaults(changed: Map<string, string>, sources: Map<string, string>): Map<string, string> {
  const merged = new Map(sources);
  for (const [fileId, content] of changed) merged.set(fileId, content);
  return merged;
}

interface AppliedAll {
  ok: boolean;
  contents: Map<string, string>;
  reports: FileApplyReport[];
}

function applyAll(sources: Map<string, string>, patches: Map<string, FilePatch>): AppliedAll {
  const contents = new Map<string, string>();
  const reports: FileApplyReport[] = [];
  for (const [fileId, patch] of patches) {
    const source = sources.get(fileId);
    if (source === undefined) {
      reports.push({
        fileId,
        path: patch.oldPath,
        ok: false,
        alreadyApplied: false,
        result: null,
        hunkContextResult: null,
        hunks: [],
      });
      continue;
    }
    const report = { ...applyFilePatch(source, patch), fileId };
    reports.push(report);
    if (report.ok && report.result !== null) contents.set(fileId, report.result);
  }
  return { ok: reports.length > 0 && reports.every((report) => report.ok), contents, reports };
}
