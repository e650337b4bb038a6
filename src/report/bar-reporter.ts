// The interactive terminal: a discovery bar and a repair bar (with the suggestions in flight)
// redrawn in place by cli-progress.
// Every other line goes through the bars' log buffer, which prints it where the bars were on the
// next redraw; the bars are then drawn again below it, so no line lands in the middle of a bar.
import cliProgress from 'cli-progress';
import type { RunEvent } from '../formats/events.js';
import { ProgressTracker, type DiscoveryProgress, type InFlight, type RepairProgress } from './progress-tracker.js';
import { EventLines } from './event-line.js';
import type { OutputStream, Reporter } from './terminal.js';

type Bar = cliProgress.SingleBar;

const ERASE_LINE = '\x1b[2K';
const SHOW_CURSOR = '\x1b[?25h';

export function createBarReporter(stream: OutputStream): Reporter {
  const tracker = new ProgressTracker();
  const lines = new EventLines();
  let bars: cliProgress.MultiBar | null = null;
  let discoveryBar: Bar | null = null;
  let repairBar: Bar | null = null;

  // A second Ctrl-C ends the process at once (interrupt.ts); the terminal must not keep a hidden cursor.
  const onExit = () => stream.write(SHOW_CURSOR);
  const start = () => {
    if (!bars) process.once('exit', onExit);
    bars ??= new cliProgress.MultiBar(
      {
        stream,
        format: '{label} {bar} {value}/{total} {status}',
        barsize: 24,
        fps: 10,
        hideCursor: true,
        // Log lines wrap like any output; the bars themselves are cut to the terminal's width.
        linewrap: true,
        // A flushed log line overwrites the bars; cli-progress only redraws a bar whose text changed.
        forceRedraw: true,
        clearOnComplete: false,
        // The pipeline owns SIGINT/SIGTERM; close() restores the cursor on every way out.
        gracefulExit: false,
      },
      cliProgress.Presets.shades_classic,
    );
    return bars;
  };
  const write = (line: string) => {
    // Each logged line erases what it overwrites: after the first, they land on old bar lines.
    if (bars) bars.log(`${ERASE_LINE}${line}\n`);
    else stream.write(`${line}\n`);
  };
  const stop = () => {
    if (!bars) return;
    // stop() renders the bars one last time but does not flush lines still waiting in the log buffer.
    bars.update();
    bars.stop();
    process.off('exit', onExit);
    bars = discoveryBar = repairBar = null;
  };
  const redraw = () => {
    const { discovery, repair } = tracker;
    if (discovery) {
      discoveryBar ??= start().create(discovery.total, 0, { label: 'Building ', status: '' });
      discoveryBar.setTotal(discovery.total);
      discoveryBar.update(discovery.done, { status: discoveryStatus(discovery) });
    }
    if (repair) {
      repairBar ??= start().create(repair.total, 0, { label: 'Repairing', status: '' });
      repairBar.setTotal(repair.total);
      repairBar.update(repair.done, { status: repairStatus(repair) });
    }
  };

  return {
    handle(event: RunEvent) {
      if (tracker.apply(event)) redraw();
      if (event.type === 'build-finished' && event.purpose === 'discovery' && event.ok) return;
      for (const line of lines.lines(event)) write(line);
    },
    notice: (text) => write(`note: ${text}`),
    print(text) {
      stop();
      stream.write(`${text}\n`);
    },
    close: stop,
  };
}

function discoveryStatus(d: DiscoveryProgress): string {
  const failing = `| failing ${d.failing}`;
  if (d.referenceRunning) return `${failing} | reference build running`;
  return d.finished ? `${failing} | done` : failing;
}

function repairStatus(r: RepairProgress): string {
  const unanswered = `unanswered ${r.unanswered}`;
  if (r.done >= r.total && r.active.length === 0) return `| ${unanswered} | done`;
  const state = (a: InFlight) =>
    a.tier === 'builtin'
      ? 'built-in repairer'
      : a.tier === 'agent'
        ? `attempt ${a.attempt}${r.maxAttempts !== null ? ` of ${r.maxAttempts}` : ''}`
        : 'starting';
  const [only] = r.active;
  if (r.active.length === 1 && only) return `| suggestion ${only.id}: ${state(only)} | ${unanswered}`;
  if (r.active.length === 0) return `| ${unanswered}`;
  return `| ${r.active.length} in flight: ${r.active.map((a) => `${a.id} (${state(a)})`).join(', ')} | ${unanswered}`;
}
