// Discovery: the reference build, then every considered suggestion's generated patch set built on
// its own, all at once up to the pool's job count.
import { RefusedError } from '../errors.js';
import type { Emit } from '../formats/events.js';
import type { BuildResult, DotDiscopop, PatchSet, Suggestion } from '../formats/types.js';
import type { BuildPool } from './pool.js';
import { describeDiagnostic } from './result.js';

export interface DiscoveryResult {
  reference: BuildResult;
  /** By suggestion id; suggestions without a patch are absent. */
  builds: Map<string, BuildResult>;
}

/** How many lines of the failing reference build the refusal quotes. */
const QUOTED_LINES = 8;

export async function discover(o: { dp: DotDiscopop; considered: Suggestion[]; pool: BuildPool; emit: Emit }): Promise<DiscoveryResult> {
  const withPatch = o.considered.filter((s) => s.files.length > 0);
  o.emit({ type: 'discovery-started', suggestions: o.considered.map((s) => s.id), builds: withPatch.length, jobs: o.pool.jobs });
  const reference = await o.pool.referenceBuild();
  if (!reference.ok) throw new RefusedError(referenceFailure(o.dp, reference));
  const results = await Promise.all(withPatch.map((s) => o.pool.build(s.id, generatedPatchSet(s), 'discovery')));
  return { reference, builds: new Map(withPatch.map((s, i) => [s.id, results[i] as BuildResult])) };
}

export function generatedPatchSet(suggestion: Suggestion): PatchSet {
  return new Map(suggestion.files.map((f) => [f.fileId, f.text]));
}

function referenceFailure(dp: DotDiscopop, reference: BuildResult): string {
  const quoted = quotedLines(reference).map((line) => `  ${line}`);
  const why = reference.failedAt === 'timeout' ? 'does not finish in time' : 'fails';
  return [
    `${dp.config.compileScript}: the project does not build without any suggestion applied (the reference build ${why}); fix the build first:`,
    ...quoted,
  ].join('\n');
}

/** The diagnostics when the parser found some; else the lines that say error, else the last lines. */
function quotedLines(reference: BuildResult): string[] {
  if (reference.diagnostics.length > 0) return reference.diagnostics.slice(0, QUOTED_LINES).map(describeDiagnostic);
  const lines = reference.output.split('\n').filter((line) => line.trim().length > 0);
  const errors = lines.filter((line) => /\berror\b/i.test(line));
  return errors.length > 0 ? errors.slice(0, QUOTED_LINES) : lines.slice(-QUOTED_LINES);
}
