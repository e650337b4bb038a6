// The one owner of the terminal during a run. Stages emit events; the reporter turns them into
// output: progress bars redrawn in place on an interactive terminal, plain one-line messages
// without escape codes everywhere else (pipes, log files, CI, NO_COLOR).
import type { RunEvent } from '../formats/events.js';
import { describeEvent, EventLines } from './event-line.js';
import { createBarReporter } from './bar-reporter.js';
import { type Env, isInteractive, type OutputStream, type Reporter } from './terminal.js';

export { describeEvent, EventLines, type Reporter };

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
