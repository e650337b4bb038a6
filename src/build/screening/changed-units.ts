// Verification builds (check 6, and --check-run's build of a candidate or a generated patch set)
// that compile only what changed: the units the patch set changes first, with the commands the
// reference build ran for them (as a screen does), then compile.sh in the same workspace, which
// finds those objects newer than their sources and every other object as the reference build left
// it, so it only links. A failing unit decides as it decides a screen: when it is the only unit and
// the compiler said why, that is what the full build says first; any other failure is built again
// with compile.sh alone, so no verdict, class or first error differs from a full build's.
import { stat, utimes } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { ProgramRunner, VerifyBuilder } from '../../formats/outcome.js';
import type { BuildResult, DotDiscopop, PatchSet } from '../../formats/types.js';
import { runCompileScript, leavesRoot, type CompileRequest } from '../compile.js';
import type { RecordedCompile, RecordedCompiles } from '../compiler-record.js';
import type { StepOutcome } from '../launcher.js';
import type { BuildPool } from '../pool.js';
import { isTranslationUnit } from '../workspace.js';
import { runRecordedCompiles, screenPlan } from './screen.js';

type Compile = (request: CompileRequest) => Promise<StepOutcome>;

/** How a verification build went: which steps ran, for the tests and the bench that count them. */
export interface ChangedUnitsCounts {
  /** Builds whose changed units compiled first, then linked through compile.sh. */
  unitsFirst: number;
  /** Builds decided by a failing unit, compile.sh not run. */
  decidedByUnit: number;
  /** Builds done with compile.sh alone: no exact command known, or a unit failure that does not decide. */
  whole: number;
}

/** The pool's verification builds, each compiling only what changed where the reference build's commands say how. */
export function changedUnitsFirst(
  dp: DotDiscopop,
  pool: Pick<BuildPool, 'build' | 'buildThen' | 'recordedCompiles'>,
): VerifyBuilder & { counts: ChangedUnitsCounts } {
  const counts: ChangedUnitsCounts = { unitsFirst: 0, decidedByUnit: 0, whole: 0 };
  const stepFor = async (patchSet: PatchSet): Promise<UnitsStep | null> => {
    const recorded = await pool.recordedCompiles();
    const plan = screenPlan(dp, recorded, patchSet);
    return plan.ok ? unitsStep(dp, inRecordedOrder(plan.commands, recorded)) : null;
  };
  const verify = async <T>(
    id: string,
    patchSet: PatchSet,
    purpose: 'discovery' | 'verify',
    then: ((program: ProgramRunner) => Promise<T>) | null,
  ): Promise<{ build: BuildResult; ran: T | null }> => {
    const whole = async () => {
      counts.whole++;
      return then
        ? pool.buildThen(id, patchSet, purpose, then)
        : { build: await pool.build(id, patchSet, purpose), ran: null };
    };
    const step = await stepFor(patchSet);
    if (!step) return whole();
    const built = then
      ? await pool.buildThen(id, patchSet, purpose, then, step.compile)
      : { build: await pool.build(id, patchSet, purpose, 'all', step.compile), ran: null };
    if (!step.unitFailed()) {
      counts.unitsFirst++;
      return built;
    }
    // The one unit's own diagnostics are what make, stopping at it, shows first.
    if (step.commands === 1 && built.build.failedAt === 'compile' && built.build.diagnostics.length > 0) {
      counts.decidedByUnit++;
      return built;
    }
    return whole();
  };
  return {
    counts,
    build: async (id, patchSet, purpose) => (await verify(id, patchSet, purpose, null)).build,
    buildThen: (id, patchSet, purpose, then) => verify(id, patchSet, purpose, then),
  };
}

interface UnitsStep {
  compile: Compile;
  commands: number;
  /** Whether the last build with this step stopped at a unit (compile.sh not run). */
  unitFailed: () => boolean;
}

function unitsStep(dp: DotDiscopop, commands: readonly RecordedCompile[]): UnitsStep {
  let failed = false;
  const compile: Compile = async (request) => {
    const started = Date.now();
    failed = false;
    const units = await runRecordedCompiles({ ...request, commands });
    if (units.kind !== 'exited' || units.exitCode !== 0) {
      failed = units.kind !== 'launch-failed' && units.kind !== 'canceled';
      return units;
    }
    await objectsAfterSources(dp, commands, request.workspaceRoot);
    const linked = await runCompileScript({
      ...request,
      timeoutMs: Math.max(1, request.timeoutMs - (Date.now() - started)),
    });
    if (linked.kind === 'spawn-failed' || linked.kind === 'launch-failed') return linked;
    // The units' compiler output first, as make prints a unit before the link: their warnings count.
    return { ...linked, stdout: units.stdout + linked.stdout };
  };
  return { compile, commands: commands.length, unitFailed: () => failed };
}

/** The commands in the order the reference build ran them, which is the order make compiles the units in. */
function inRecordedOrder(commands: readonly RecordedCompile[], recorded: RecordedCompiles): RecordedCompile[] {
  if (!recorded.ok) return [...commands];
  const at = (c: RecordedCompile) => recorded.compiles.indexOf(c);
  return [...commands].sort((a, b) => at(a) - at(b));
}

/**
 * Each object a unit command wrote gets a time after its source's: on a file system with coarse
 * times, an object written within the patched source's tick would look out of date, and compile.sh
 * would compile the unit again (right, but twice, and its warnings twice).
 */
async function objectsAfterSources(
  dp: DotDiscopop,
  commands: readonly RecordedCompile[],
  workspaceRoot: string,
): Promise<void> {
  for (const c of commands) {
    const at = c.args.indexOf('-o');
    if (!c.args.includes('-c') || at < 0) continue;
    const rel = relative(dp.projectRoot, resolve(c.cwd, c.args[at + 1] as string));
    if (leavesRoot(rel)) continue;
    const object = join(workspaceRoot, rel);
    const sources = c.operands.filter(isTranslationUnit).map((operand) => join(workspaceRoot, operand));
    if (sources.length === 0) continue;
    const newest = Math.max(...(await Promise.all(sources.map(async (file) => (await stat(file)).mtimeMs))));
    const own = (await stat(object).catch(() => null))?.mtimeMs;
    if (own === undefined || own > newest) continue;
    const after = (newest + 1000) / 1000;
    await utimes(object, after, after);
  }
}
