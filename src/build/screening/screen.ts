// The screen of a suggestion: only the translation units its patch set changes, compiled with the
// commands the reference build ran for them (compiler-record.ts), in a workspace that holds the
// patched files at their real paths. A unit that fails decides the suggestion without compile.sh;
// the others go on to a confirmation build (confirm.ts).
import { isTranslationUnit } from '../workspace.js';
import { compileLayout, type CompileRequest } from '../compile.js';
import type { RecordedCompile, RecordedCompiles } from '../compiler-record.js';
import type { DotDiscopop, PatchSet } from '../../formats/types.js';
import type { StepOutcome } from '../launcher.js';

export type ScreenPlan = { ok: true; commands: RecordedCompile[] } | { ok: false; reason: string };

/**
 * The recorded commands that compile what `patchSet` changes, or why there are none that are
 * exact: a changed file that is not a translation unit (what includes a header is not known), a
 * unit no recorded compiler compiled (an absolute compiler path, a generated copy), a unit
 * compiled more than once with different commands.
 */
export function screenPlan(dp: Pick<DotDiscopop, 'files'>, recorded: RecordedCompiles, patchSet: PatchSet): ScreenPlan {
  if (!recorded.ok) return { ok: false, reason: recorded.reason };
  const commands = new Map<string, RecordedCompile>();
  for (const [fileId, text] of patchSet) {
    if (text.length === 0) continue;
    const relPath = dp.files.get(fileId)?.relPath;
    if (relPath === undefined) return { ok: false, reason: `file ${fileId} is not in FileMapping.txt` };
    if (!isTranslationUnit(relPath))
      return { ok: false, reason: `${relPath} is not a translation unit, and which units include it is not recorded` };
    const calls = new Map(recorded.compiles.filter((c) => c.operands.includes(relPath)).map((c) => [commandKey(c), c]));
    if (calls.size === 0)
      return { ok: false, reason: `the reference build compiled ${relPath} with no compiler found through PATH` };
    if (calls.size > 1)
      return {
        ok: false,
        reason: `the reference build compiled ${relPath} ${calls.size} times with different commands`,
      };
    const [[key, call]] = [...calls] as [[string, RecordedCompile]];
    commands.set(key, call);
  }
  return commands.size > 0
    ? { ok: true, commands: [...commands.values()] }
    : { ok: false, reason: 'the patch set changes no file' };
}

function commandKey(c: RecordedCompile): string {
  return JSON.stringify([c.compiler, c.cwd, c.args, c.env]);
}

/**
 * Runs the commands one after the other in the workspace, each a step of the launcher, with
 * compile.sh's environment and the variables the call had. The output is each command line (as make
 * echoes it) followed by what the compiler said; the outcome is the first failing command's, or
 * the last one's. A step the launcher could not run comes back as it is.
 */
export async function runRecordedCompiles(
  o: Omit<CompileRequest, 'extraEnv'> & { commands: readonly RecordedCompile[] },
): Promise<StepOutcome> {
  const { dp, workspaceRoot } = o;
  const toWorkspace = (text: string) => text.replaceAll(dp.projectRoot, workspaceRoot);
  const { env } = compileLayout({ dp, workspaceRoot, threads: o.threads });
  const deadline = Date.now() + o.timeoutMs;
  let output = '';
  let last: StepOutcome | undefined;
  for (const c of o.commands) {
    const args = c.args.map(toWorkspace);
    const recordedEnv = Object.fromEntries(Object.entries(c.env).map(([name, value]) => [name, toWorkspace(value)]));
    const step = await o.launcher.run({
      label: o.label,
      command: ['sh', '-c', 'exec "$@" 2>&1', 'sh', c.compiler, ...args],
      cwd: toWorkspace(c.cwd),
      env: { ...env, ...recordedEnv },
      timeoutMs: Math.max(1, deadline - Date.now()),
      signal: o.signal,
    });
    if (step.kind === 'launch-failed' || step.kind === 'spawn-failed') return step;
    output += `${[c.compiler, ...args].join(' ')}\n${step.stdout}${step.stderr}`;
    last = { ...step, stdout: output, stderr: '' };
    if (step.kind !== 'exited' || step.exitCode !== 0) break;
  }
  return last as StepOutcome;
}
