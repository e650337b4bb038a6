// Named kill points for the fault-injection suite. A test sets
// PATCH_REPAIR_FAULT=<point>[@<n>][:<signal>] and the run sends itself that signal (SIGKILL by
// default) the n-th time (default: the first) it reaches the point, so every interruption the
// invariants promise to survive is exercised for real. PATCH_REPAIR_FAULT=pause:<file> is the pause
// mode: at every point the run appends `<point>@<n> <pid>` to <file> and stops itself (SIGSTOP)
// until the test, having copied the tree as a kill right there would leave it, continues it
// (SIGCONT); one run thus stands for a kill at each of its points. Unset, this does nothing.
import { appendFileSync } from 'node:fs';

type Request =
  { kind: 'kill'; point: string; occurrence: number; signal: NodeJS.Signals } | { kind: 'pause'; file: string };

const requested = parseRequest(process.env.PATCH_REPAIR_FAULT);
const reached = new Map<string, number>();

export function faultPoint(name: string): void {
  if (!requested || (requested.kind === 'kill' && requested.point !== name)) return;
  const occurrence = (reached.get(name) ?? 0) + 1;
  reached.set(name, occurrence);
  if (requested.kind === 'pause') {
    appendFileSync(requested.file, `${name}@${occurrence} ${process.pid}\n`);
    process.kill(process.pid, 'SIGSTOP');
  } else if (occurrence === requested.occurrence) process.kill(process.pid, requested.signal);
}

function parseRequest(value: string | undefined): Request | null {
  if (!value) return null;
  if (value.startsWith('pause:') && value.length > 'pause:'.length)
    return { kind: 'pause', file: value.slice('pause:'.length) };
  const match = /^([^@:]+)(?:@(\d+))?(?::(SIG[A-Z0-9]+))?$/.exec(value);
  if (!match) throw new Error(`PATCH_REPAIR_FAULT: expected <point>[@<n>][:<signal>] or pause:<file>, got '${value}'`);
  return {
    kind: 'kill',
    point: match[1]!,
    occurrence: Number(match[2] ?? 1),
    signal: (match[3] ?? 'SIGKILL') as NodeJS.Signals,
  };
}
