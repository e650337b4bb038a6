// patch_repair/run-state.json: what `--resume` needs from a run that did not finish. Written
// atomically after discovery and after every suggestion that finishes, so a SIGKILL leaves the
// state of the last finished step. It moves to history/ with the rest of the run; only the state
// still in patch_repair/ (the most recent run) can be resumed.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ERROR_CLASSES } from '../types.js';
import { isNotFound, writeFileAtomic } from './fs-atomic.js';
import { repairDir } from './paths.js';
import { SuggestionRecordSchema } from './results.js';

const DiagnosticSchema = z.object({
  file: z.string(),
  fileId: z.string().optional(),
  line: z.number().int().optional(),
  column: z.number().int().optional(),
  severity: z.enum(['error', 'warning', 'note', 'fatal error']),
  message: z.string(),
  errorClass: z.enum(ERROR_CLASSES),
});

export const BuildResultSchema = z.object({
  ok: z.boolean(),
  failedAt: z.enum(['patch', 'compile', 'timeout']).optional(),
  output: z.string(),
  diagnostics: z.array(DiagnosticSchema),
  errorClass: z.enum(ERROR_CLASSES).optional(),
  firstError: z.string().optional(),
  durationMs: z.number(),
});

export const RunStateSchema = z.object({
  version: z.literal(1),
  run_id: z.string(),
  mode: z.enum(['repair', 'dry-run']),
  inputs: z.string().describe('digest of what every build depends on: project tree, compile.sh, settings, compiler identity, threads'),
  builds: z
    .record(z.string(), z.object({ digest: z.string().describe('inputs plus the patch set built'), build: BuildResultSchema }))
    .describe('discovery build of each considered suggestion with a patch'),
  finished: z.record(z.string(), SuggestionRecordSchema).describe('records that a resumed run keeps as they are'),
  complete: z.boolean().describe('every considered suggestion finished: nothing to resume'),
});
export type RunState = z.infer<typeof RunStateSchema>;

export function runStatePath(dotDir: string): string {
  return join(repairDir(dotDir), 'run-state.json');
}

/** The state in patch_repair/, or null when there is none or it cannot be read as one. */
export async function readRunState(dotDir: string): Promise<RunState | null> {
  let text: string;
  try {
    text = await readFile(runStatePath(dotDir), 'utf8');
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
  try {
    const parsed = RunStateSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Writes the state; successive calls are applied in order, whatever the caller awaits. */
export class RunStateWriter {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly dotDir: string,
    readonly state: RunState,
  ) {}

  save(): Promise<void> {
    const text = `${JSON.stringify(RunStateSchema.parse(this.state))}\n`;
    this.chain = this.chain.then(() => writeFileAtomic(runStatePath(this.dotDir), text));
    return this.chain;
  }
}
