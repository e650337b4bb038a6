// Discovery: the reference build, then every considered suggestion's generated patch set, up to the
// pool's job count at once: screened (its changed units compiled alone with the reference build's
// recorded commands), then confirmed by compile.sh builds carrying several suggestions whose units
// compiled; whatever cannot be screened exactly is built alone (screening/confirm.ts). Each
// suggestion's verdict is that of building it alone with compile.sh.
import { ClusterError, RefusedError } from '../errors.js';
import type { Emit } from '../formats/events.js';
import type { BuildResult, DotDiscopop, PatchSet, Suggestion } from '../formats/types.js';
import { saysConfiguredElsewhere, type ConfiguredFolder } from './location.js';
import type { BuildPool } from './pool.js';
import { screenAndConfirm } from './screening/confirm.js';
import { describeDiagnostic } from './result.js';

export interface DiscoveryResult {
  reference: BuildResult;
  /** By suggestion id; suggestions without a patch are absent. */
  builds: Map<string, BuildResult>;
}

/** How many lines of the failing reference build the refusal quotes. */
const QUOTED_LINES = 8;

/**
 * `reused`: builds a resumed run takes over because nothing they depend on changed; not built
 * again. `settled`: suggestions a resumed run keeps as finished; named among the considered, not built. `onBuilt` sees each build as it finishes, so a run killed during a long discovery keeps
 * the builds it finished.
 */
export async function discover(o: {
  dp: DotDiscopop;
  considered: Suggestion[];
  pool: BuildPool;
  emit: Emit;
  reused?: ReadonlyMap<string, BuildResult>;
  settled?: ReadonlySet<string>;
  onBuilt?: (id: string, build: BuildResult) => Promise<void>;
  /** The build as the run judges it beyond the compiler's word (the static collapse check), before onBuilt sees it. */
  judge?: (suggestion: Suggestion, build: BuildResult) => Promise<BuildResult>;
}): Promise<DiscoveryResult> {
  const judge = o.judge ?? (async (_suggestion: Suggestion, build: BuildResult) => build);
  const withPatch = o.considered.filter((s) => s.files.length > 0 && !o.settled?.has(s.id));
  const toBuild = withPatch.filter((s) => !o.reused?.has(s.id));
  o.emit({
    type: 'discovery-started',
    suggestions: o.considered.map((s) => s.id),
    builds: toBuild.length,
    reused: withPatch.length - toBuild.length,
    jobs: o.pool.jobs,
  });
  const reference = await o.pool.referenceBuild();
  const folders = configuredElsewhere(o.dp, reference, o.pool.foldersConfiguredInProject);
  if (!reference.ok || saysConfiguredElsewhere(reference.output))
    throw new RefusedError(referenceFailure(o.dp, reference, folders));
  const byId = new Map(toBuild.map((s) => [s.id, s]));
  const pending = screenAndConfirm({
    dp: o.dp,
    pool: o.pool,
    emit: o.emit,
    toBuild: toBuild.map((s) => ({ id: s.id, patchSet: generatedPatchSet(s) })),
    judge: (id, build) => judge(byId.get(id) as Suggestion, build),
    onBuilt: async (id, build) => o.onBuilt?.(id, build),
  });
  let built: BuildResult[];
  try {
    built = await Promise.all(pending);
  } catch (error) {
    // An interrupt cancels every build at once: the ones that had finished are handed to onBuilt
    // first, so the run keeps their result. A cluster failure stops discovery at once.
    if (!(error instanceof ClusterError)) await Promise.allSettled(pending);
    throw error;
  }
  const builds = new Map(toBuild.map((s, i) => [s.id, built[i] as BuildResult]));
  for (const s of withPatch) {
    const reused = o.reused?.get(s.id);
    if (reused) builds.set(s.id, reused);
  }
  return { reference, builds };
}

export function generatedPatchSet(suggestion: Suggestion): PatchSet {
  return new Map(suggestion.files.map((f) => [f.fileId, f.text]));
}

/**
 * A reference build that passed although CMake said its build folder was configured elsewhere is
 * refused too: CMake then goes on with the original folder's paths and compiles the user's own
 * sources instead of the copy's, so every suggestion would seem to build.
 */
function referenceFailure(dp: DotDiscopop, reference: BuildResult, folders: readonly ConfiguredFolder[]): string {
  const quoted = quotedLines(reference).map((line) => `  ${line}`);
  const why = reference.ok ? 'passed' : reference.failedAt === 'timeout' ? 'does not finish in time' : 'fails';
  if (reference.ok || folders.length > 0) {
    const named =
      folders.length > 0
        ? folders.map((f) => (f.folder === '.' ? 'the project root' : `${f.folder}/`)).join(', ')
        : 'a build folder in the project';
    const records =
      folders.length > 0
        ? ` (${folders.map((f) => `${f.folder === '.' ? '' : `${f.folder}/`}${f.record}`).join(', ')} records it)`
        : '';
    const excludable = folders.filter((f) => f.folder !== '.').map((f) => `--exclude ${f.folder}`);
    const fixes = [
      excludable.length > 0 && `leave it out of the copies with ${excludable.join(' ')}`,
      `let compile.sh configure a fresh build folder of its own (e.g. cmake -S . -B build-discopop), which then exists only in the copies`,
    ].filter(Boolean);
    const cause = reference.ok
      ? `the reference build passed, but only because ${named} was configured at the project's own path ${dp.projectRoot}${records}: CMake went on with that folder's paths and compiled the sources there instead of the copy's, so every suggestion would seem to build.`
      : `the reference build fails because ${named} was configured at the project's own path ${dp.projectRoot}${records}.`;
    return [
      `${dp.config.compileScript}: ${cause}`,
      `patch-repair builds in copies of the project, and a build folder configured for one place does not work in another. Either ${fixes.join(', or ')}. The reference build said:`,
      ...quoted,
    ].join('\n');
  }
  return [
    `${dp.config.compileScript}: the project does not build without any suggestion applied (the reference build ${why}); fix the build first:`,
    ...quoted,
  ].join('\n');
}

/**
 * The build folders behind a "configured elsewhere" failure: those the reference build's output
 * names (CMake's cache-directory and source-directory errors), else, when the output has no such
 * words, none, so an unrelated failure is never blamed on a build folder that happens to exist.
 */
function configuredElsewhere(
  dp: DotDiscopop,
  reference: BuildResult,
  configured: readonly ConfiguredFolder[],
): ConfiguredFolder[] {
  if (configured.length === 0 || !saysConfiguredElsewhere(reference.output)) return [];
  const named = configured.filter(
    (f) =>
      reference.output.includes(f.folder === '.' ? dp.projectRoot : `${f.folder}/`) ||
      reference.output.includes(`/${f.folder}`),
  );
  return named.length > 0 ? named : [...configured];
}

/** The diagnostics when the parser found some; else the lines that say error, else the last lines. */
function quotedLines(reference: BuildResult): string[] {
  if (reference.diagnostics.length > 0) return reference.diagnostics.slice(0, QUOTED_LINES).map(describeDiagnostic);
  const lines = reference.output.split('\n').filter((line) => line.trim().length > 0);
  const errors = lines.filter((line) => /\berror\b/i.test(line));
  return errors.length > 0 ? errors.slice(0, QUOTED_LINES) : lines.slice(-QUOTED_LINES);
}
