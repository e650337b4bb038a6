// Whether a run recorded in a lock or scratch record may still be running. Only a process on this
// host can be checked; signal 0 tests existence without touching it.
import { hostname } from 'node:os';

export interface Owner {
  pid: number;
  host: string;
}

export function thisOwner(): Owner {
  return { pid: process.pid, host: hostname() };
}

export function isLiveOnThisHost(owner: Owner): boolean {
  if (owner.host !== hostname()) return false;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
