// gcc reports an error met inside a macro's expansion at the macro's definition, often in a header
// outside the suggestion's files (`solve.h:5:20: for statement expected before 'double'` for a
// directive standing above `DATA_TYPE w = 0;`), or at a `#define` of the file itself (a directive
// above `DECLARE(acc);`), and says where the macro was used in the notes that follow ("in
// expansion of macro 'DATA_TYPE'"). The use is where the directive's mistake is; clang reports
// there already ("expanded from macro" notes point the other way).
import type { Diagnostic } from '../formats/types.js';

const IN_EXPANSION = /^in expansion of macro '[^']+'/;

/**
 * Each error whose expansion notes reach one of `fileIds`, placed at the outermost such use (the
 * last note: nested macros list the inner uses first).
 */
export function atMacroUse(errors: readonly Diagnostic[], fileIds: ReadonlySet<string>): Diagnostic[] {
  return errors.map((error) => {
    const use = error.notes
      .filter(
        (note) =>
          IN_EXPANSION.test(note.message) &&
          note.fileId !== undefined &&
          fileIds.has(note.fileId) &&
          note.line !== undefined,
      )
      .at(-1);
    return use === undefined
      ? error
      : { ...error, file: use.file, fileId: use.fileId, line: use.line, column: use.column };
  });
}
