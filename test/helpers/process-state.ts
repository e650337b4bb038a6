// Whether a process outlived the group kill that should have ended it.
import { readFileSync } from 'node:fs';

/** A process that exists and is not a zombie waiting to be reaped. */
export function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
