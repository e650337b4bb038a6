// The result of one build and the compiler diagnostics in it: handed from the build stage to the
// repair stage in memory, and stored in run-state.json for --resume. One schema, one type, so the
// stored form cannot lose a field the in-memory one has (failsBuild once did).
import { z } from 'zod';

/** The error classes of design.md, from the diagnostic text alone; the built-in repairer refines them. */
export const ERROR_CLASSES = [
  'undeclared-in-clause',
  'duplicate-data-sharing',
  'invalid-reduction',
  'invalid-privatization',
  'this-in-clause',
  'unknown-clause',
  'clause-not-allowed',
  'directive-not-before-loop',
  'non-canonical-loop',
  'early-exit',
  'collapse-not-nested',
  'task-region-brace',
  'patch-does-not-apply',
  'link',
  'pseudo-directive',
  'other',
] as const;
export type ErrorClass = (typeof ERROR_CLASSES)[number];

const place = {
  file: z.string(),
  fileId: z.string().optional().describe('FileMapping id of `file`, when it is a project file'),
  line: z.number().int().optional(),
  column: z.number().int().optional(),
};

export const DiagnosticNoteSchema = z.object({ ...place, message: z.string() });
export type DiagnosticNote = z.infer<typeof DiagnosticNoteSchema>;

/**
 * One compiler (or linker, or patch) diagnostic, parsed once by src/build/diagnostics.ts; the
 * built-in repairer, the prompt, results.json and the review page all read this form. `message`
 * has ASCII quotes whatever the compiler's locale printed.
 */
export const DiagnosticSchema = z.object({
  ...place,
  severity: z.enum(['error', 'warning', 'note', 'fatal error']),
  message: z.string(),
  errorClass: z.enum(ERROR_CLASSES),
  notes: z
    .array(DiagnosticNoteSchema)
    .describe('the note: lines printed right after it (clang\'s "defined as shared", gcc\'s candidates)'),
  failsBuild: z
    .literal(true)
    .optional()
    .describe(
      'a warning that fails its build all the same: the compiler ignored (part of) an OpenMP directive on a line the built patch set added',
    ),
});
export type Diagnostic = z.infer<typeof DiagnosticSchema>;

/** Whether a diagnostic fails its build: every error, and the warnings the build stage marked. */
export function isBuildFailure(d: Diagnostic): boolean {
  return d.severity === 'error' || d.severity === 'fatal error' || d.failsBuild === true;
}

export const BuildResultSchema = z.object({
  ok: z.boolean(),
  failedAt: z
    .enum(['patch', 'compile', 'timeout', 'static-check'])
    .optional()
    .describe(
      "where it failed: GNU patch could not apply the set, compile.sh failed, or it built and patch-repair's static check found an added collapse over loops that are not perfectly nested",
    ),
  output: z.string().describe("raw output: patch's own words, or compile.sh's stdout+stderr"),
  diagnostics: z.array(DiagnosticSchema),
  errorClass: z.enum(ERROR_CLASSES).optional().describe("the first error's class; absent when the build passed"),
  firstError: z.string().optional().describe('the first error line, for tables'),
  durationMs: z.number(),
});
export type BuildResult = z.infer<typeof BuildResultSchema>;
