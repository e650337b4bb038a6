// The one owner of the terminal during a run. Stages emit events; the reporter turns them into
// output: progress bars redrawn in place on an interactive terminal, plain one-line messages
// without escape codes everywhere else (pipes, log files, CI, NO_COLOR).
import type { RunEvent } from '../store/events.js';
import { describeEvent, EventLines } from './event-line.js';
import { createBarReporter } from './bar-reporter.js';
import { type Env, isInteractive, type OutputStream } from './terminal.js';

export { describeEvent, EventLines };

export interface Reporter {
  handle(event: RunEvent): void;
  notice(text: string): void;
  /** Text after the live part of the run (the summary); bars are taken down first. */
  print(text: string): void;
  close(): void;
}

/** `env` decides with the stream whether bars and colours are allowed; the process's own by default. */
export function createReporter(o: { stream: OutputStream; env?: Env }): Reporter {
  return isInteractive(o.stream, o.env ?? process.env) ? createBarReporter(o.stream) : createLineReporter(o.stream);
}

export function createLineReporter(stream: NodeJS.WritableStream): Reporter {
  const write = (line: string) => stream.write(`${line}\n`);
  const lines = new EventLines();
  return {
    handle(event) {
      for (const line of lines.lines(event)) write(line);
    },
    notice: (text) => write(`note: ${text}`),
    print: (text) => write(text),
    close() {},
  };
}
