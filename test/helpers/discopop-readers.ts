// DiscoPoP's readers of a patch-repair folder, re-implemented from its code at 53a01f2
// (tuda-hpclab/discopop, BSD-3-Clause): the Patch Repair tab's loader and table
// (library/discopop_library/ProjectManager/gui/mixins/patch_repair_panel.py,
// `_load_patch_repair_results_from_file`, `_refresh_patch_repair_table`, STATUS_DISPLAY) and the
// progress-line splitter it uses (gui/plots/data.py `split_progress_events` with results.py's
// PROGRESS_PREFIX). Tests run them on what patch-repair writes: what they show is what a DiscoPoP
// user sees.

export const PR_PROGRESS_PREFIX = '@@PR_PROGRESS ';

/** STATUS_DISPLAY: the label the table shows per status; any other status is shown as itself. */
const STATUS_DISPLAY: Record<string, string> = {
  repaired: 'Repaired',
  ok: 'Compiles',
  failed: 'Not repaired',
  not_applied: 'Patch not applicable',
  agent_unreachable: 'Agent unreachable',
  skipped: 'Skipped',
};

export interface PanelRow {
  suggestion: string;
  hotspot: string;
  status: string;
  files: string;
  attempts: string;
  error: string;
}

/** Python's `str(x or "")` for the values a record holds. */
function pyStrOr(value: unknown, fallback: string): string {
  if (value === null || value === undefined || value === '' || value === 0 || value === false) return fallback;
  if (Array.isArray(value) && value.length === 0) return fallback;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** `_load_patch_repair_results_from_file`: records only when `suggestions` is an object (a dict); else the table stays empty. */
export function panelRecords(resultsJsonText: string): Record<string, Record<string, unknown>> {
  let document: unknown;
  try {
    document = JSON.parse(resultsJsonText);
  } catch {
    return {};
  }
  const suggestions = (document as { suggestions?: unknown }).suggestions;
  if (typeof suggestions !== 'object' || suggestions === null || Array.isArray(suggestions)) return {};
  return Object.fromEntries(Object.entries(suggestions).map(([k, v]) => [String(k), { ...(v as object) }]));
}

/** `_as_sort_key`: numeric ids first in numeric order, then the rest. */
function sortKey(id: string): [number, string] {
  return /^\s*[+-]?\d+\s*$/.test(id) ? [Number(id), ''] : [1 << 30, id];
}

/** `_refresh_patch_repair_table`: one row per record, in its order. */
export function panelRows(records: Record<string, Record<string, unknown>>): PanelRow[] {
  const ids = Object.keys(records).sort((a, b) => {
    const [na, sa] = sortKey(a);
    const [nb, sb] = sortKey(b);
    return na - nb || (sa < sb ? -1 : sa > sb ? 1 : 0);
  });
  return ids.map((id) => {
    const record = records[id]!;
    const status = pyStrOr(record.status, '');
    const label = STATUS_DISPLAY[status] ?? (status || 'unknown');
    const changed = (record.changed_files || []) as unknown[];
    const files = (record.files || []) as unknown[];
    return {
      suggestion: id,
      hotspot: pyStrOr(record.hotspot_type, ''),
      status: label,
      files: files.length > 0 ? `${changed.length} / ${files.length}` : '-',
      attempts: pyStrOr(record.attempts, '0'),
      error: pyStrOr(record.first_error, ''),
    };
  });
}

/** Python's json.JSONDecoder().raw_decode: the JSON value at the start of `text` and where it ends, or null. */
function rawDecode(text: string): { value: unknown; end: number } | null {
  // The longest prefix that parses is the value raw_decode returns for an object: try each closing brace.
  for (let end = text.indexOf('}') + 1; end > 0; end = text.indexOf('}', end) + 1) {
    try {
      return { value: JSON.parse(text.slice(0, end)), end };
    } catch {
      // not complete yet
    }
  }
  return null;
}

/**
 * `split_progress_events(line, PROGRESS_PREFIX)`: every event in one line of the tool's output
 * (the prefix may sit anywhere in it), and the rest of the line, which the tab echoes.
 */
export function splitProgressEvents(
  line: string,
  prefix = PR_PROGRESS_PREFIX,
): { events: Record<string, unknown>[]; residual: string } {
  if (!line.includes(prefix)) return { events: [], residual: line };
  const events: Record<string, unknown>[] = [];
  const segments = line.split(prefix);
  const residual = [segments[0]!];
  for (const segment of segments.slice(1)) {
    const stripped = segment.trimStart();
    const offset = segment.length - stripped.length;
    const decoded = stripped.startsWith('{') ? rawDecode(stripped) : null;
    if (
      decoded === null ||
      typeof decoded.value !== 'object' ||
      decoded.value === null ||
      Array.isArray(decoded.value)
    ) {
      residual.push(prefix + segment);
    } else {
      events.push(decoded.value as Record<string, unknown>);
      residual.push(segment.slice(offset + decoded.end));
    }
  }
  return { events, residual: residual.join('') };
}

/** The tab reads stdout line by line (text mode: \n, \r\n and \r end a line): each line through the splitter. */
export function progressEventsOf(stdout: string): Record<string, unknown>[] {
  return stdout.split(/(?<=\r\n|\n|\r(?!\n))/).flatMap((line) => splitProgressEvents(line).events);
}

/** results.json as DiscoPoP's ResultsWriter writes it (results.py at 53a01f2): json.dump(sort_keys=True, indent=4), no version, no run. */
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
