// --log and --write-log: every event has a level; the terminal drops notices below --log, and
// --write-log keeps every event at or above it in patch_repair/patch_repair.log, one line each.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeEvent } from './report/event-line.js';
import { LOG_LEVELS, type LogLevel } from './formats/run-options.js';
import type { RunEvent } from './formats/events.js';
import { repairDir } from './store/paths.js';

export function levelOf(event: RunEvent): LogLevel {
  switch (event.type) {
    case 'notice':
      return event.level === 'info' ? 'INFO' : event.level === 'warning' ? 'WARNING' : 'ERROR';
    case 'agent-picked':
      return event.message === null ? 'DEBUG' : 'WARNING';
    case 'build-started':
    case 'call-started':
    // Facts the run's records fold; the lines a person reads say them already.
    case 'resumed':
    case 'workspaces':
    case 'discovered':
    case 'writing':
      return 'DEBUG';
    case 'check':
      return event.passed ? 'DEBUG' : 'INFO';
    case 'call-finished':
      return event.outcome === 'answered' || event.outcome === 'declined' ? 'INFO' : 'WARNING';
    default:
      return 'INFO';
  }
}

export function atLeast(level: LogLevel, threshold: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold);
}

export function logFilePath(dotDir: string): string {
  return join(repairDir(dotDir), 'patch_repair.log');
}

/** A sink for --write-log: appends `<time> <LEVEL> <message>` for events at or above `threshold`. */
export function createLogFile(o: { dotDir: string; threshold: LogLevel }): (event: RunEvent) => void {
  const path = logFilePath(o.dotDir);
  return (event) => {
    const level = levelOf(event);
    if (!atLeast(level, o.threshold)) return;
    const message =
      describeEvent(event)?.trim() ?? `${event.type} ${JSON.stringify({ ...event, t: undefined, type: undefined })}`;
    appendFileSync(path, `${event.t} ${level} ${message}\n`);
  };
}
