// Reads ThreadSanitizer's data-race reports out of its log files (TSAN_OPTIONS log_path): both
// accesses with their kind, size, stack and the variable where TSan names it (a global). Only
// `WARNING: ThreadSanitizer: data race` blocks count; other warnings (a thread leak, a signal in a
// handler) are not races of a parallel region.

export interface Frame {
  function: string;
  /** The file as the build compiled it (a workspace path); null for `<null>`. */
  file: string | null;
  line: number | null;
  column: number | null;
}

export interface ParsedAccess {
  kind: 'read' | 'write';
  size: number;
  frames: Frame[];
}

export interface ParsedRace {
  first: ParsedAccess;
  previous: ParsedAccess;
  variable: string | null;
}

const ACCESS = /^\s*(?:Previous )?(?:atomic )?(read|write) of size (\d+) at /i;
const FRAME = /^\s*#\d+ (\S+) (\S+?)(?::(\d+)(?::(\d+))?)? \(/;
const GLOBAL = /^\s*Location is global '([^']*)'/;

/** Every data-race report in `log`, in order. */
export function parseTsanLog(log: string): ParsedRace[] {
  const races: ParsedRace[] = [];
  for (const block of log.split(/^==================$/m)) {
    if (!/WARNING: ThreadSanitizer: data race/.test(block)) continue;
    const accesses: ParsedAccess[] = [];
    let variable: string | null = null;
    let current: ParsedAccess | null = null;
    for (const line of block.split('\n')) {
      const access = ACCESS.exec(line);
      if (access) {
        current = { kind: access[1]!.toLowerCase() as 'read' | 'write', size: Number(access[2]), frames: [] };
        accesses.push(current);
        continue;
      }
      const global = GLOBAL.exec(line);
      // TSan writes '??' for a location it has no name for (a stack slot).
      if (global && global[1] !== '??' && global[1] !== '') variable = global[1]!;
      if (/^\s*$/.test(line) || /^\s*(Location|Mutex|Thread) /.test(line)) {
        current = null;
        continue;
      }
      const frame = current && FRAME.exec(line);
      if (current && frame) {
        const file = frame[2] === '<null>' ? null : frame[2]!;
        current.frames.push({
          function: frame[1]!,
          file,
          line: frame[3] ? Number(frame[3]) : null,
          column: frame[4] ? Number(frame[4]) : null,
        });
      }
    }
    const [first, previous] = accesses;
    if (first && previous) races.push({ first, previous, variable });
  }
  return races;
}
