// Whether output may use escape codes (bars redrawn in place, colours). Only a terminal a person
// watches gets them: a pipe, a log file, NO_COLOR (https://no-color.org) or a CI job gets plain lines.
import type { RunEvent } from '../formats/events.js';

export interface OutputStream extends NodeJS.WritableStream {
  isTTY?: boolean;
  columns?: number;
}

export type Env = Readonly<Record<string, string | undefined>>;

export function isInteractive(stream: OutputStream, env: Env): boolean {
  if (stream.isTTY !== true) return false;
  if ((env.NO_COLOR ?? '') !== '') return false;
  const ci = env.CI ?? '';
  return ci === '' || ci === '0' || ci.toLowerCase() === 'false';
}

/** A terminal's width; undefined for a pipe or file, whose lines are never cut. */
export function terminalWidth(stream: OutputStream): number | undefined {
  return stream.isTTY === true && stream.columns !== undefined && stream.columns > 0 ? stream.columns : undefined;
}

const CODES = { red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36, bold: 1, dim: 2 } as const;
export type Style = keyof typeof CODES;

/** Wraps text in an SGR code when colour is on; the identity otherwise. */
export function painter(color: boolean): (style: Style, text: string) => string {
  return color ? (style, text) => `\x1b[${CODES[style]}m${text}\x1b[0m` : (_style, text) => text;
}

/** A unified diff with removed lines red, added lines green and hunk headers cyan. */
export function paintDiff(diff: string, paint: ReturnType<typeof painter>): string {
  return diff
    .split('\n')
    .map((line) => {
      if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ')) return paint('bold', line);
      if (line.startsWith('@@')) return paint('cyan', line);
      if (line.startsWith('+')) return paint('green', line);
      if (line.startsWith('-')) return paint('red', line);
      return line;
    })
    .join('\n');
}

/** What a run's events are shown through: bars on an interactive terminal, plain lines elsewhere. */
export interface Reporter {
  handle(event: RunEvent): void;
  notice(text: string): void;
  /** Text after the live part of the run (the summary), on the answer stream; bars are taken down first. */
  print(text: string): void;
  /** Columns of the answer stream when it is a terminal: what the summary table must fit in. */
  width: number | undefined;
  close(): void;
}
