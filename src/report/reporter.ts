// The one owner of the terminal during a run. Stages emit events; the reporter turns them into
// output: progress bars redrawn in place on an interactive terminal, plain one-line messages
// without escape codes everywhere else (pipes, log files, CI, NO_COLOR).
import { describeEvent, EventLines } from './event-line.js';
import { createBarReporter } from './bar-reporter.js';
import { type Env, isInteractive, type OutputStream, type Reporter, terminalWidth } from './terminal.js';

export { describeEvent, EventLines, type Reporter };

/**
 * `stream` gets what a run answers (the summary); `live` gets what happens on the way there
 * (progress, bars, warnings and notes), so that `patch-repair > summary.txt` or `2>/dev/null`
 * keeps only the answer. `env` decides with the live stream whether bars and colours are allowed.
 */
export function createReporter(o: { stream: OutputStream; live?: OutputStream; env?: Env }): Reporter {
  const live = o.live ?? process.stderr;
  return isInteractive(live, o.env ?? process.env)
    ? createBarReporter(live, o.stream)
    : createLineReporter(live, o.stream);
}

export function createLineReporter(live: NodeJS.WritableStream, out: OutputStream): Reporter {
  const write = (line: string) => live.write(`${line}\n`);
  const lines = new EventLines();
  return {
    handle(event) {
      for (const line of lines.lines(event)) write(line);
    },
    notice: (text) => write(`note: ${text}`),
    print: (text) => out.write(`${text}\n`),
    width: terminalWidth(out),
    close() {},
  };
}
