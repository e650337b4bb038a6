// DiscoPoP's output validation (Project_manager.md, "Output validation"): a configuration's
// optional validate.sh decides, after execute.sh, whether a run is correct; an optional
// compile_validate.sh first builds what validate.sh needs. DiscoPoP runs it after the timed
// execute.sh because it may overwrite the binary execute.sh runs (its own example rebuilds a.out
// with -DVALIDATE), so a workspace that ran it is rebuilt with compile.sh before its next
// execute.sh run. Both scripts run like compile.sh and execute.sh: the same folder, environment
// and launcher (runConfigurationScript).
import { access } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ValidationStep } from '../formats/outcome.js';
import type { BuildConfig } from '../formats/types.js';
import { describeOutcome, type RunOutcome } from '../process.js';
import { runConfigurationScript, workspacePath, type CompileRequest } from './compile.js';
import type { StepOutcome } from './launcher.js';

/** The configuration's validation scripts in the user's tree; null when it has no validate.sh. */
export interface ValidationScripts {
  validate: string;
  /** Resolved as DiscoPoP does: the configuration's own, then the shared one in project/configs/; null: compile.sh's build serves. */
  compileValidate: string | null;
}

function validateScriptOf(config: Pick<BuildConfig, 'dir'>): string {
  return join(config.dir, 'validate.sh');
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** A compile_validate.sh without a validate.sh is ignored, as DiscoPoP ignores it: nothing would run against its build. */
export async function findValidationScripts(config: Pick<BuildConfig, 'dir'>): Promise<ValidationScripts | null> {
  const validate = validateScriptOf(config);
  if (!(await exists(validate))) return null;
  for (const candidate of [join(config.dir, 'compile_validate.sh'), join(dirname(config.dir), 'compile_validate.sh')]) {
    if (await exists(candidate)) return { validate, compileValidate: candidate };
  }
  return { validate, compileValidate: null };
}

type Step = (script: string, timeoutMs: number) => Promise<StepOutcome>;

export interface ValidationRequest {
  scripts: ValidationScripts;
  /** compile.sh's request for the workspace, at the threads of the run being validated. */
  request: CompileRequest;
  /** --run-timeout for validate.sh; the build timeout for compile_validate.sh. */
  runTimeoutMs: number;
  buildTimeoutMs: number;
  /**
   * The pool around one launcher step: it tries again a step Slurm could not run and throws on an
   * abort, so what comes back is the script's own outcome.
   */
  step: (what: string, run: () => Promise<StepOutcome>) => Promise<RunOutcome>;
}

/** compile_validate.sh when there is one, then validate.sh; a failed build skips validate.sh, as in DiscoPoP. */
export async function runValidationStep(v: ValidationRequest): Promise<ValidationStep> {
  const started = Date.now();
  const inWorkspace = (abs: string) => join(v.request.workspaceRoot, workspacePath(v.request.dp, abs));
  const run: Step = (script, timeoutMs) =>
    runConfigurationScript({ ...v.request, label: `${v.request.label}-validate`, timeoutMs }, inWorkspace(script));
  const builtBy = v.scripts.compileValidate ? 'compile_validate.sh' : 'compile.sh';
  if (v.scripts.compileValidate) {
    const script = v.scripts.compileValidate;
    const build = await v.step('compile_validate.sh', () => run(script, v.buildTimeoutMs));
    if (!exitedZero(build)) return validationStep('compile_validate.sh', builtBy, build, started);
  }
  const validated = await v.step('validate.sh', () => run(v.scripts.validate, v.runTimeoutMs));
  return validationStep('validate.sh', builtBy, validated, started);
}

export function exitedZero(outcome: RunOutcome): boolean {
  return outcome.kind === 'exited' && outcome.exitCode === 0;
}

/** The one test of a validation step: validate.sh itself ran and exited 0. */
export function validationPassed(step: ValidationStep): boolean {
  return step.script === 'validate.sh' && step.ending === 'exited' && step.exitCode === 0;
}

export function validationStep(
  script: ValidationStep['script'],
  builtBy: ValidationStep['builtBy'],
  outcome: RunOutcome,
  started: number,
): ValidationStep {
  const durationMs = Date.now() - started;
  if (outcome.kind === 'canceled' || outcome.kind === 'spawn-failed')
    throw new Error(`${script}: ${describeOutcome(outcome)}`);
  const output = outcome.stdout + outcome.stderr;
  switch (outcome.kind) {
    case 'exited':
      return { script, builtBy, ending: 'exited', exitCode: outcome.exitCode, signal: null, output, durationMs };
    case 'signaled':
      return { script, builtBy, ending: 'signaled', exitCode: null, signal: outcome.signal, output, durationMs };
    case 'timeout':
      return { script, builtBy, ending: 'timeout', exitCode: null, signal: null, output, durationMs };
  }
}
