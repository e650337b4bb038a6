// The built CLI run as a user runs it, for tests of the whole product (`npm run build` first).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runProcess } from '../../src/process.js';
import { type RunResults } from '../../src/formats/results.js';
import { resultsOf } from '../../src/formats/results-document.js';
import { EventSchema, type RunEvent } from '../../src/formats/events.js';

export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/** `patch-repair …args` in `cwd`. A run that times out or is killed throws: that is a test failure, not an outcome. */
export async function runCli(
  cwd: string,
  args: readonly string[],
  o: { env?: Record<string, string>; timeoutMs?: number } = {},
) {
  const outcome = await runProcess({
    command: process.execPath,
    args: [CLI, ...args],
    cwd,
    ...(o.env && { env: o.env }),
    timeoutMs: o.timeoutMs ?? 240_000,
  });
  if (outcome.kind !== 'exited') throw new Error(`patch-repair ${args.join(' ')}: ${outcome.kind}`);
  return outcome;
}

/** `patch_repair/results.json` of a .discopop folder, read through its schema. */
export function readResults(dotDir: string): RunResults {
  return resultsOf(JSON.parse(readFileSync(path.join(dotDir, 'patch_repair', 'results.json'), 'utf8')));
}

/** `patch_repair/progress.jsonl` of a .discopop folder, every event read through its schema. */
export function readEvents(dotDir: string): RunEvent[] {
  return readFileSync(path.join(dotDir, 'patch_repair', 'progress.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => EventSchema.parse(JSON.parse(line)));
}

/** Processes whose working directory is inside `dir`: builds that outlived their run or timeout. */
export function processesIn(dir: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/cwd`).startsWith(dir + path.sep);
      } catch {
        return false;
      }
    })
    .map(Number);
}
