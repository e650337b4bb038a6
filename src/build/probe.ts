// The OpenMP probe (options.md): after the reference build, the project is built once more with a
// `#pragma omp parallel for` whose `private` clause names an undeclared identifier, guarded by
// `#ifdef _OPENMP`, above a loop DiscoPoP found in a translation unit a considered suggestion
// patches. Every OpenMP compiler must reject it. If the build passes, the compiler did not compile
// OpenMP (compile.sh ignores the settings' flags, -fopenmp-simd, a compiler without OpenMP) or
// compile.sh hides a compiler failure behind exit 0; either way broken suggestions would "build",
// so the run refuses.
import { readFile } from 'node:fs/promises';
import { decodeBytes } from '../bytes.js';
import { parsePatches, loopTargetsOfPatch } from '../patch/index.js';
import type { Emit } from '../formats/events.js';
import type { OpenmpProbe } from '../formats/results.js';
import type { BuildResult, DotDiscopop, Suggestion } from '../formats/types.js';
import type { BuildPool } from './pool.js';
import { describeDiagnostic } from './result.js';
import { saysConfiguredElsewhere } from './location.js';

/** No project declares it; the diagnostic that rejects the probe names it. */
export const PROBE_IDENTIFIER = 'patch_repair_openmp_probe_undeclared';
export const PROBE_DIRECTIVE = `#pragma omp parallel for private(${PROBE_IDENTIFIER})`;

const TRANSLATION_UNIT = /\.(?:c|cc|cp|cpp|cxx|c\+\+|C|CPP|cu)$/;

export interface ProbePlacement {
  fileId: string;
  relPath: string;
  /** 1-based line of the loop the probe stands directly above. */
  line: number;
  patch: string;
}

/**
 * The first loop, in suggestion order, that a generated loop directive is meant for, in a
 * translation unit (a header may not be compiled, or not alone). DiscoPoP profiled that loop, so
 * the build compiles it; a loop found by scanning text could sit in `#if 0`.
 */
export async function placeProbe(considered: readonly Suggestion[]): Promise<ProbePlacement | null> {
  for (const suggestion of considered) {
    for (const file of suggestion.files) {
      if (!TRANSLATION_UNIT.test(file.source.relPath)) continue;
      const [patch] = parsePatches(file.text).patches;
      if (!patch) continue;
      const original = decodeBytes(await readFile(file.source.path));
      if (original.includes(PROBE_IDENTIFIER)) continue;
      // Split on LF only: a CRLF file keeps its CR in every line, so the hunk matches it byte for byte.
      const lines = original.split('\n');
      for (const target of loopTargetsOfPatch(patch, original)) {
        // A loop inside a macro definition is not where a directive can stand.
        if (target > 0 && /\\\s*$/.test(lines[target - 1]!)) continue;
        return {
          fileId: file.fileId,
          relPath: file.source.relPath,
          line: target + 1,
          patch: probePatch(file.source.relPath, lines, target),
        };
      }
    }
  }
  return null;
}

/**
 * One hunk that inserts the probe above `target` (0-based), in the unified form GNU patch reads.
 * The `_OPENMP` guard makes it a test of the whole OpenMP compile: clang parses directives under
 * -fopenmp-simd too, but defines `_OPENMP` only with full OpenMP, so a simd-only build passes the
 * probe and is refused like a build without OpenMP.
 */
function probePatch(relPath: string, lines: readonly string[], target: number): string {
  const loop = lines[target]!;
  const indent = /^[ \t]*/.exec(loop)![0];
  const cr = loop.endsWith('\r') ? '\r' : '';
  const inserted = ['#ifdef _OPENMP', `${indent}${PROBE_DIRECTIVE}`, '#endif'].map((line) => line + cr);
  return [
    `--- a/${relPath}`,
    `+++ b/${relPath}`,
    `@@ -${target + 1},1 +${target + 1},${1 + inserted.length} @@`,
    ...inserted.map((line) => `+${line}`),
    ` ${loop}`,
    '',
  ].join('\n');
}

/**
 * Runs the probe through the pool. Call it before queuing the discovery builds: it queues the
 * probe as soon as the reference build is done, ahead of them. Resolves to null when the reference
 * build failed (discovery refuses for that). A probe that compiled is the caller's to refuse
 * (probeRefusal), after recording it.
 */
export function runOpenmpProbe(o: {
  dp: DotDiscopop;
  placement: ProbePlacement | null;
  pool: BuildPool;
  emit: Emit;
}): Promise<OpenmpProbe | null> {
  const { placement } = o;
  return o.pool.referenceBuild().then(async (reference) => {
    // discover() refuses such a run; a probe built from a folder configured elsewhere would
    // compile the user's sources, not the probe, and refuse for the wrong reason first.
    if (!reference.ok || saysConfiguredElsewhere(reference.output)) return null;
    if (placement === null) {
      const probe: OpenmpProbe = {
        status: 'no-loop',
        file: null,
        line: null,
        directive: null,
        detail: null,
        duration_ms: null,
      };
      o.emit({ type: 'openmp-probe', probe });
      o.emit({
        type: 'notice',
        level: 'warning',
        message: `OpenMP probe: no loop of a considered suggestion's translation unit can hold it, so it is not proven that ${o.dp.config.compileScript} compiles OpenMP; if it does not, broken suggestions will seem to build`,
      });
      return probe;
    }
    const build = await o.pool.build('openmp-probe', new Map([[placement.fileId, placement.patch]]), 'probe');
    const probe = probeRecord(placement, build);
    o.emit({ type: 'openmp-probe', probe });
    if (probe.status === 'inconclusive') {
      o.emit({
        type: 'notice',
        level: 'warning',
        message: `OpenMP probe in ${placement.relPath}:${placement.line} proves nothing: ${probe.detail}`,
      });
    }
    if (probe.status === 'rejected' && probe.detail === UNNAMED) {
      o.emit({
        type: 'notice',
        level: 'warning',
        message: `OpenMP probe in ${placement.relPath}:${placement.line}: the build failed, but its output does not name ${PROBE_IDENTIFIER}; taken as rejected by the compiler (the same tree without the probe built)`,
      });
    }
    return probe;
  });
}

const UNNAMED = 'the build failed; its output does not name the probe';

function probeRecord(placement: ProbePlacement, build: BuildResult): OpenmpProbe {
  const base = {
    file: placement.relPath,
    line: placement.line,
    directive: PROBE_DIRECTIVE,
    duration_ms: build.durationMs,
  };
  if (build.ok) return { ...base, status: 'compiled', detail: null };
  if (build.failedAt === 'compile') {
    const named = build.diagnostics.find((d) => d.message.includes(PROBE_IDENTIFIER));
    const line = named ? describeDiagnostic(named) : build.output.split('\n').find((l) => l.includes(PROBE_IDENTIFIER));
    // A compile.sh that keeps the compiler's words to itself still failed because of the probe:
    // the same tree without it built.
    return { ...base, status: 'rejected', detail: line?.trim() ?? UNNAMED };
  }
  const why =
    build.failedAt === 'timeout'
      ? 'its build did not finish in time'
      : `GNU patch could not insert it: ${build.firstError ?? build.output.trim()}`;
  return { ...base, status: 'inconclusive', detail: why };
}

/** The refusal: which file held the probe, that it compiled, and what to fix. */
export function probeRefusal(dp: DotDiscopop, placement: { file: string | null; line: number | null }): string {
  const settings =
    dp.config.settingsSource === 'par_settings.json'
      ? 'par_settings.json'
      : 'seq_settings.json (par_settings.json derived from it)';
  return (
    `OpenMP probe: the build passed with \`${PROBE_DIRECTIVE}\` above the loop at ${placement.file}:${placement.line}, a directive every OpenMP compiler must reject, ` +
    `so every broken suggestion would seem to build. Either the compiler never saw the directives (${dp.config.compileScript} must pass $CC/$CXX and $CFLAGS/$CXXFLAGS from ${settings}, ` +
    `which must carry -fopenmp; -fopenmp-simd or a compiler without OpenMP is not enough), or compile.sh exits 0 although the compiler failed (make -k, || true); fix that and run again`
  );
}
