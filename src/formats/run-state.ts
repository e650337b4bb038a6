// The files patch_repair/ keeps between runs and while one runs: the write-back journal, the run
// lock and the scratch-folder record. store/ reads and writes them; docs/outputs.md describes them.
import { z } from 'zod';

// journal/<id>.json: what an unfinished change to patch_generator/<id>/ was going to do.
export const JournalSchema = z.discriminatedUnion('kind', [
  z.object({
    version: z.literal(1),
    kind: z.literal('write-back'),
    id: z.string(),
    /**
     * prepared: temp files may be incomplete and nothing in the folder has changed yet;
     * committed: every temp file is complete and on disk, renames may have started.
     */
    state: z.enum(['prepared', 'committed']),
    /** created: this write-back made the backup; kept: a backup of the current generation existed. */
    backup: z.enum(['created', 'kept']),
    files: z
      .array(z.object({ name: z.string(), digest: z.string() }))
      .describe('files replaced or added, with their new digests'),
    target_digest: z.string().describe('digest of the whole folder once the write-back is done'),
  }),
  z.object({
    version: z.literal(1),
    kind: z.literal('restore'),
    id: z.string(),
    reason: z.string().describe('why the backup is being put back: --restore, or undoing a write-back'),
  }),
]);
export type Journal = z.infer<typeof JournalSchema>;

// run.lock: who holds the .discopop folder.
export const LockFileSchema = z.object({
  pid: z.number().int().positive(),
  host: z.string(),
  started: z.string().describe('ISO time the lock was taken'),
});
export type LockFile = z.infer<typeof LockFileSchema>;

// scratch.json: the scratch folders of runs, so that the next run removes what a killed run left.
export const ScratchEntrySchema = z.object({
  dir: z.string(),
  run_id: z.string(),
  pid: z.number().int().positive(),
  host: z.string(),
  created: z.string(),
  /** Where the run's builds ran; a `slurm` run may have left jobs queued or running. */
  launcher: z.enum(['local', 'slurm']).optional(),
});
export type ScratchEntry = z.infer<typeof ScratchEntrySchema>;

export const ScratchFileSchema = z.object({ version: z.literal(1), runs: z.array(ScratchEntrySchema) });
