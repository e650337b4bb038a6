// What a DiscoPoP user sees of a patch-repair folder, modelled from the rules of DiscoPoP's Patch
// Repair tab (docs/outputs.md, "results.json: one file, two tools"; docs/options.md, --progress-lines):
//
// - The tab shows results.json only when it parses and its `suggestions` is an object keyed by
//   suggestion id; anything else shows an empty table.
// - One row per record, integer ids first in numeric order, then any other id in text order. Its
//   cells: the id; `hotspot_type`; the status as the tab names it (its own label for each of the six
//   statuses, any other text as written, `unknown` when empty); the files as "<changed> / <all>", or
//   `-` for a record without files; `attempts`, `0` when empty; `first_error`. An empty value shows
//   as the cell's default, as Python's `value or default` does.
// - Progress comes as `@@PR_PROGRESS <json object>` in the tool's output, stdout and stderr merged;
//   the mark may stand anywhere in a line (a progress bar redrawn with \r leaves text before it) and
//   a line may hold several. Text around the events is echoed; a mark not followed by a JSON object
//   is echoed as written. Lines end at \n, \r\n or \r.
//
// When DISCOPOP_SRC names a DiscoPoP checkout, tests also run its own splitter
// (`discopopOwnSplitter`): its GUI data module needs only the standard library.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

export const PROGRESS_MARK = '@@PR_PROGRESS ';

const STATUS_LABELS: Readonly<Record<string, string>> = {
  repaired: 'Repaired',
  ok: 'Compiles',
  failed: 'Not repaired',
  not_applied: 'Patch not applicable',
  agent_unreachable: 'Agent unreachable',
  skipped: 'Skipped',
};

export interface TabRow {
  suggestion: string;
  hotspot: string;
  status: string;
  files: string;
  attempts: string;
  error: string;
}

type TabRecord = Record<string, unknown>;

/** The records the tab would list, by id; none when the file is not what the tab reads. */
export function tabRecords(resultsJson: string): Record<string, TabRecord> {
  let suggestions: unknown;
  try {
    suggestions = (JSON.parse(resultsJson) as { suggestions?: unknown }).suggestions;
  } catch {
    return {};
  }
  const isObject = typeof suggestions === 'object' && suggestions !== null && !Array.isArray(suggestions);
  return isObject ? { ...(suggestions as Record<string, TabRecord>) } : {};
}

/** A value as a cell shows it: an empty one (Python-falsy) is the cell's default. */
function cell(value: unknown, empty: string): string {
  const isEmpty =
    value === undefined ||
    value === null ||
    value === false ||
    value === 0 ||
    value === '' ||
    (Array.isArray(value) && value.length === 0) ||
    (typeof value === 'object' && value !== null && Object.keys(value).length === 0);
  if (isEmpty) return empty;
  if (value === true) return 'True';
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : JSON.stringify(value);
}

/** Python's len() of a list or a text; anything else counts as none. */
const listLength = (value: unknown) => (Array.isArray(value) || typeof value === 'string' ? value.length : 0);

export function tabRows(records: Record<string, TabRecord>): TabRow[] {
  const integer = (id: string) => (/^\s*[+-]?\d+\s*$/.test(id) ? Number(id) : null);
  const order = (a: string, b: string) => {
    const [x, y] = [integer(a), integer(b)];
    if (x !== null && y !== null) return x - y;
    if (x !== null || y !== null) return x !== null ? -1 : 1;
    return a < b ? -1 : a > b ? 1 : 0;
  };
  return Object.entries(records)
    .sort(([a], [b]) => order(a, b))
    .map(([id, record]) => {
      const status = cell(record.status, '');
      return {
        suggestion: id,
        hotspot: cell(record.hotspot_type, ''),
        status: STATUS_LABELS[status] ?? (status === '' ? 'unknown' : status),
        files: listLength(record.files) > 0 ? `${listLength(record.changed_files)} / ${listLength(record.files)}` : '-',
        attempts: cell(record.attempts, '0'),
        error: cell(record.first_error, ''),
      };
    });
}

/** The JSON object at the start of `text` and the length it takes, or null when none starts there. */
function leadingObject(text: string): { value: Record<string, unknown>; length: number } | null {
  if (!text.startsWith('{')) return null;
  // An object ends at one of its closing braces; the first end that parses is the whole object.
  for (let end = text.indexOf('}'); end >= 0; end = text.indexOf('}', end + 1)) {
    let value: unknown;
    try {
      value = JSON.parse(text.slice(0, end + 1));
    } catch {
      continue;
    }
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? { value: value as Record<string, unknown>, length: end + 1 }
      : null;
  }
  return null;
}

/** The events in one line of output, and the line without them as the tab echoes it. */
export function eventsInLine(line: string): { events: Record<string, unknown>[]; residual: string } {
  const events: Record<string, unknown>[] = [];
  let residual = '';
  let at = line.indexOf(PROGRESS_MARK);
  if (at < 0) return { events, residual: line };
  residual = line.slice(0, at);
  while (at >= 0) {
    const next = line.indexOf(PROGRESS_MARK, at + PROGRESS_MARK.length);
    const payload = line.slice(at + PROGRESS_MARK.length, next < 0 ? undefined : next);
    const spaces = payload.length - payload.trimStart().length;
    const found = leadingObject(payload.slice(spaces));
    if (found === null) residual += PROGRESS_MARK + payload;
    else {
      events.push(found.value);
      residual += payload.slice(spaces + found.length);
    }
    at = next;
  }
  return { events, residual };
}

/** Every event of a run's output, read line by line as the tab reads its pipe. */
export function progressEvents(output: string): Record<string, unknown>[] {
  return splitLines(output).flatMap((line) => eventsInLine(line).events);
}

/** Lines as Python's text mode ends them (\n, \r\n, \r), each with its ending. */
export function splitLines(output: string): string[] {
  return output.match(/[^\r\n]*(\r\n|\r|\n)|[^\r\n]+$/g) ?? [];
}

// The GUI data module is loaded from its file, the checkout's library/ on the path for its own
// imports; the mark it looks for is set to the patch repair tool's.
const CALL_SPLITTER = [
  'import importlib.util, inspect, json, sys, types',
  'sys.path.insert(0, sys.argv[1])',
  "spec = importlib.util.spec_from_file_location('discopop_gui_data', sys.argv[2])",
  'module = importlib.util.module_from_spec(spec)',
  'spec.loader.exec_module(module)',
  'module.PROGRESS_PREFIX = sys.argv[3]',
  'split = module.split_progress_events',
  'takes_mark = len(inspect.signature(split).parameters) > 1',
  'lines = json.loads(sys.stdin.read())',
  'print(json.dumps([split(line, sys.argv[3]) if takes_mark else split(line) for line in lines]))',
].join('\n');

/** DiscoPoP's own splitter of the checkout at `src`, over each line: [events, residual]. */
export function discopopOwnSplitter(src: string): (lines: string[]) => [Record<string, unknown>[], string][] {
  const library = join(src, 'library');
  const module = join(library, 'discopop_library', 'ProjectManager', 'gui', 'plots', 'data.py');
  return (lines) =>
    JSON.parse(
      execFileSync('python3', ['-c', CALL_SPLITTER, library, module, PROGRESS_MARK], {
        input: JSON.stringify(lines),
        encoding: 'utf8',
      }),
    ) as [Record<string, unknown>[], string][];
}

/** A results.json in the shape DiscoPoP's tool writes it: sorted keys, four-space indent, no version, no run. */
export const DISCOPOP_RESULTS = `${JSON.stringify(
  {
    suggestions: {
      '1': {
        accepted_attempt: 2,
        attempts: 2,
        backend: 'claude',
        changed_files: [2],
        duration_s: 41.7,
        files: [1, 2],
        first_error: "a.c:3:9: error: 'x' undeclared",
        hotspot_type: 'yes',
        model: 'sonnet',
        status: 'repaired',
        suggestion_id: 1,
        unanswered: 0,
      },
      '10': {
        accepted_attempt: null,
        attempts: 6,
        backend: 'claude',
        changed_files: [],
        duration_s: 300.2,
        files: [1],
        first_error: '',
        hotspot_type: 'unknown',
        model: 'sonnet',
        status: 'failed',
        suggestion_id: 10,
        unanswered: 1,
      },
      '2': {
        accepted_attempt: null,
        attempts: 0,
        backend: 'claude',
        changed_files: [],
        duration_s: 0.4,
        files: [],
        first_error: 'patch does not apply',
        hotspot_type: 'maybe',
        model: 'sonnet',
        status: 'not_applied',
        suggestion_id: 2,
        unanswered: 0,
      },
    },
  },
  null,
  4,
)}`;
