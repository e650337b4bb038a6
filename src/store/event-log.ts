// progress.jsonl: one validated event per line. Lines are written with a synchronous write each,
// so whatever kills the run, the file holds every event emitted before it (at most the last line
// torn by a crash of the machine itself), and `show` can replay it.
import { closeSync, fsyncSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { type Emit, type RunEvent, EventSchema } from '../formats/events.js';
import { type DiscopopLogLine, DiscopopLogLineSchema } from '../formats/discopop-progress.js';
import { isNotFound, readTextIfPresent } from './fs-atomic.js';
import { repairDir } from './paths.js';

export interface EventLog {
  emit: Emit;
  close(): Promise<void>;
}

export function eventLogPath(dotDir: string): string {
  return join(repairDir(dotDir), 'progress.jsonl');
}

export function openEventLog(dotDir: string): EventLog {
  mkdirSync(repairDir(dotDir), { recursive: true });
  const path = eventLogPath(dotDir);
  let fd: number | null = openSync(path, 'a');
  return {
    emit(input) {
      if (fd === null) throw new Error(`${path}: event emitted after the log was closed: ${input.type}`);
      const event = EventSchema.parse({ t: new Date().toISOString(), ...input });
      writeSync(fd, `${JSON.stringify(event)}\n`);
    },
    async close() {
      if (fd === null) return;
      fsyncSync(fd);
      closeSync(fd);
      fd = null;
    },
  };
}

export interface EventLogContents {
  events: RunEvent[];
  /** The last line was cut off: the run was killed while writing it, or is still running. */
  truncated: boolean;
}

export async function readEventLog(dotDir: string): Promise<EventLogContents> {
  return readEventLogFile(eventLogPath(dotDir));
}

/** Reads any progress.jsonl, e.g. one under history/<run id>/. */
export async function readEventLogFile(path: string): Promise<EventLogContents> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (isNotFound(error)) throw new UsageError(`${path}: not found: no run has been recorded in this .discopop`);
    throw error;
  }
  const lines = text.split('\n');
  const last = lines.pop() ?? '';
  const events: RunEvent[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const event = parseEvent(line);
    if (typeof event === 'string') throw new UsageError(`${path}: line ${index + 1}: ${event}`);
    events.push(event);
  });
  if (last.trim() === '') return { events, truncated: false };
  const event = parseEvent(last);
  if (typeof event === 'string') return { events, truncated: true };
  events.push(event);
  return { events, truncated: false };
}

function parseEvent(line: string): RunEvent | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'not a JSON line';
  }
  const parsed = EventSchema.safeParse(value);
  return parsed.success ? parsed.data : `not a patch-repair event: ${parsed.error.issues[0]?.message ?? 'invalid'}`;
}

/**
 * DiscoPoP's own progress.jsonl (its tool wrote this run): its lines, or null when the file is
 * absent or is patch-repair's. Told apart by the first line: DiscoPoP's events name an `event`,
 * ours a `type`. Lines that are not JSON objects (a torn last line) are passed over, as DiscoPoP's
 * own reader does.
 */
export async function readDiscopopLog(path: string): Promise<DiscopopLogLine[] | null> {
  const text = await readTextIfPresent(path);
  if (text === null) return null;
  const lines: DiscopopLogLine[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const parsed = DiscopopLogLineSchema.safeParse(value);
    if (!parsed.success || 'type' in parsed.data) {
      if (lines.length === 0) return null;
      continue;
    }
    lines.push(parsed.data);
  }
  return lines.length > 0 ? lines : null;
}
