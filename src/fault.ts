// Named kill points for the fault-injection suite. A test sets PATCH_REPAIR_FAULT=<point>[:<signal>]
// and the run sends itself that signal (SIGKILL by default) when it reaches the point, so every
// interruption the invariants promise to survive is exercised for real. Unset, this does nothing.

const requested = process.env.PATCH_REPAIR_FAULT;

export function faultPoint(name: string): void {
  if (!requested) return;
  const [point, signal = 'SIGKILL'] = requested.split(':');
  if (point !== name) return;
  process.kill(process.pid, signal as NodeJS.Signals);
}
