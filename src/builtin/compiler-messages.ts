// Compiler messages of a failed build, read from the raw gcc/clang text and tied to the files of
// the suggestion. Only what the rules need: where (file id, line, column) and the message.
import type { BuildResult, Suggestion } from '../formats/types.js';

export interface CompilerMessage {
  fileId: string;
  /** 1-based line in the patched file. */
  line: number;
  column: number | null;
  severity: 'error' | 'warning' | 'note' | 'fatal error';
  text: string;
}

const ANSI_ESCAPE = /\x1b\[[0-9;]*[A-Za-z]/g;
const MESSAGE = /^(.+?):(\d+):(?:(\d+):)? (error|fatal error|warning|note): (.*)$/;

/**
 * Messages in files of the suggestion's patch set, in output order. Repeats are kept: gcc
 * reports the same text once per clause entry (two objects of one class, two errors). The parsed
 * `build.diagnostics` are used only when the raw output holds no message line.
 */
export function readCompilerMessages(build: BuildResult, suggestion: Suggestion): CompilerMessage[] {
  const messages: CompilerMessage[] = [];
  for (const rawLine of build.output.split('\n')) {
    // compile.sh may force colours (-fdiagnostics-color=always); the escapes are not part of the text.
    const match = MESSAGE.exec(rawLine.replace(ANSI_ESCAPE, '').replace(/\r$/, ''));
    if (!match) continue;
    const fileId = fileIdOf(match[1]!, suggestion);
    if (fileId === null) continue;
    messages.push({
      fileId,
      line: Number(match[2]),
      column: match[3] === undefined ? null : Number(match[3]),
      severity: match[4] as CompilerMessage['severity'],
      text: normalizeQuotes(match[5]!),
    });
  }
  if (messages.length > 0) return messages;
  return build.diagnostics.flatMap((diagnostic) =>
    diagnostic.fileId !== undefined && diagnostic.line !== undefined && suggestion.files.some((file) => file.fileId === diagnostic.fileId)
      ? [{ fileId: diagnostic.fileId, line: diagnostic.line, column: diagnostic.column ?? null, severity: diagnostic.severity, text: normalizeQuotes(diagnostic.message) }]
      : []);
}

/**
 * Error lines naming a file outside the suggestion's patch set (another source, a system
 * header): no rule may touch those files, so their presence ends the built-in attempt.
 */
export function foreignErrors(build: BuildResult, suggestion: Suggestion): string[] {
  return build.output
    .split('\n')
    .map((line) => line.replace(ANSI_ESCAPE, '').trim())
    .filter((line) => {
      const match = MESSAGE.exec(line);
      return match !== null && match[4]!.endsWith('error') && fileIdOf(match[1]!, suggestion) === null;
    });
}

/**
 * The suggestion file a message path names. compile.sh may run the compiler from the project
 * root (`src/k.c`), from a subfolder (`k.c`) or with absolute workspace paths, so a path matches
 * a file when one ends with the other; ambiguous short names match nothing.
 */
function fileIdOf(path: string, suggestion: Suggestion): string | null {
  const normalized = path.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
  const matches = suggestion.files.filter((file) => {
    const relPath = file.source.relPath;
    return normalized === relPath || normalized.endsWith(`/${relPath}`) || relPath.endsWith(`/${normalized}`);
  });
  return matches.length === 1 ? matches[0]!.fileId : null;
}

/** gcc under a UTF-8 locale quotes with ‘…’; the rules match the ASCII form. */
function normalizeQuotes(text: string): string {
  return text.replace(/[‘’]/g, "'");
}
