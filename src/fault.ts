// Named kill points for the fault-injection suite. A test sets
// PATCH_REPAIR_FAULT=<point>[@<n>][:<signal>] and the run sends itself that signal (SIGKILL by
// default) the n-th time (default: the first) it reaches the point, so every interruption the
// invariants promise to survive is exercised for real. Unset, this does nothing.

const requested = parseRequest(process.env.PATCH_REPAIR_FAULT);
let reached = 0;

export function faultPoint(name: string): void {
  if (!requested || requested.point !== name) return;
  reached += 1;
  if (reached === requested.occurrence) process.kill(process.pid, requested.signal);
}

function parseRequest(value: string | undefined): { point: string; occurrence: number; signal: NodeJS.Signals } | null {
  if (!value) return null;
  const match = /^([^@:]+)(?:@(\d+))?(?::(SIG[A-Z0-9]+))?$/.exec(value);
  if (!match) throw new Error(`PATCH_REPAIR_FAULT: expected <point>[@<n>][:<signal>], got '${value}'`);
  return { point: match[1]!, occurrence: Number(match[2] ?? 1), signal: (match[3] ?? 'SIGKILL') as NodeJS.Signals };
}
