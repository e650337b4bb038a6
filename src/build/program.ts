// One workspace's program as check 7 runs it: execute.sh, then DiscoPoP's validation step when the
// configuration has a validate.sh (validate.ts). compile_validate.sh may overwrite what execute.sh
// runs (DiscoPoP's own example rebuilds a.out with -DVALIDATE), which is why DiscoPoP runs it after
// the timed run; a workspace that ran it is built again with compile.sh before its next execute.sh
// run, so every run executes compile.sh's build.
import type { ProgramRunner } from '../formats/outcome.js';
import type { RunOutcome } from '../process.js';
import { runCompileScript, type CompileRequest } from './compile.js';
import { programRun, runExecuteScript } from './execute.js';
import type { StepOutcome } from './launcher.js';
import { withLaunchRetries, type LaunchRetries } from './pool-jobs.js';
import {
  findValidationScripts,
  exitedZero,
  runValidationStep,
  validationStep,
  type ValidationScripts,
} from './validate.js';

export interface ProgramRequest {
  /** compile.sh's request for this workspace: its label, threads and the build timeout. */
  build: CompileRequest;
  /** One launcher step, tried again when Slurm could not run it; throws on an abort. */
  step: (what: string, attempt: () => Promise<StepOutcome>) => Promise<RunOutcome>;
}

function programRunner(o: ProgramRequest): ProgramRunner {
  const { build, step } = o;
  // Looked up once per build: a few file checks, and every run of one build is judged alike.
  let lookup: Promise<ValidationScripts | null> | undefined;
  let validationBuilt = false;
  return {
    run: async (threads, timeoutMs, env) => {
      // A run with an environment of its own (the --check-races run under ThreadSanitizer) is
      // execute.sh alone: validation judges results, which check 7 does on the plain build.
      if (env)
        return programRun(
          threads,
          await step('a run', () =>
            runExecuteScript({
              ...build,
              label: `${build.label}-run`,
              threads,
              timeoutMs,
              extraEnv: { ...build.extraEnv, ...env },
            }),
          ),
        );
      const scripts = await (lookup ??= findValidationScripts(build.dp.config));
      if (validationBuilt) {
        const started = Date.now();
        const rebuilt = await step('compile.sh', () => runCompileScript(build));
        if (!exitedZero(rebuilt))
          return {
            ...programRun(threads, {
              kind: 'exited',
              exitCode: 0,
              stdout: '',
              stderr: '',
              truncated: false,
              durationMs: 0,
            }),
            validation: validationStep('compile.sh', 'compile_validate.sh', rebuilt, started),
          };
      }
      const run = programRun(
        threads,
        await step('a run', () => runExecuteScript({ ...build, label: `${build.label}-run`, threads, timeoutMs })),
      );
      if (!scripts || run.ending !== 'exited' || run.exitCode !== 0) return run;
      validationBuilt = scripts.compileValidate !== null;
      const validation = await runValidationStep({
        scripts,
        request: { ...build, threads },
        runTimeoutMs: timeoutMs,
        buildTimeoutMs: build.timeoutMs,
        step,
      });
      return { ...run, validation };
    },
  };
}

/** The program of one workspace, each of its steps through the launcher with launch retries. */
export function programIn(o: Omit<CompileRequest, 'signal'> & { retries: LaunchRetries }): ProgramRunner {
  const { retries, ...build } = o;
  const signal = retries.signal;
  const label = build.label;
  const what =
    label === 'reference' || label === 'sequential' || label === 'race reference'
      ? `the ${label} build`
      : `suggestion ${label}`;
  return programRunner({
    build: { ...build, signal },
    step: async (name, attempt) => {
      const outcome = await withLaunchRetries(retries, `${name} of ${what}`, attempt);
      if (outcome.kind === 'canceled') signal.throwIfAborted();
      return outcome;
    },
  });
}

/** The program of the pool's workspace at `workspaceRoot`, built with `dp`'s settings. */
export function programOf(
  pool: Omit<CompileRequest, 'signal' | 'label' | 'workspaceRoot' | 'extraEnv'> & { retries: LaunchRetries },
  workspaceRoot: string,
  label: string,
  dp = pool.dp,
): ProgramRunner {
  const { launcher, threads, timeoutMs, retries } = pool;
  return programIn({ dp, launcher, workspaceRoot, label, threads, timeoutMs, retries });
}
