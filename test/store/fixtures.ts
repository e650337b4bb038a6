// Valid records for the store's own files, built the way the pipeline fills them.
import type { RunResults, RunRecord, SuggestionRecord } from '../../src/formats/results.js';

export function runRecord(id: string): RunRecord {
  return {
    id,
    started: '2026-11-30T14:00:00.000Z',
    finished: '2026-11-30T14:05:00.000Z',
    mode: 'repair',
    dot_discopop: '/home/dev/demo/.discopop',
    config: 'default',
    backend: 'builtin',
    model: null,
    options: { prompts: 3 },
    counts: { ok: 1, repaired: 1, failed: 0, not_applied: 0, agent_unreachable: 0, skipped: 0 },
    endpoint_down: false,
    cost_usd: null,
    input_tokens: null,
    output_tokens: null,
    funnel: [
      {
        tier: 'builtin',
        backend: 'builtin',
        model: null,
        answered: 1,
        extracted: 1,
        applies: 1,
        canonical: 1,
        directives_kept: 1,
        strict: null,
        builds: 1,
        runs_same: null,
        written: 1,
      },
    ],
    exit_code: 0,
    openmp_probe: null,
    not_considered: [],
    run_reference: null,
  };
}

export function suggestionRecord(id: string): SuggestionRecord {
  return {
    id,
    status: 'repaired',
    written: true,
    hotspot: 'YES',
    pattern_type: 'do_all',
    files: ['1'],
    changed_files: ['1'],
    attempts: 0,
    unanswered: 0,
    builtin: { tries: 1, accepted: true, declined: null },
    backend: 'builtin',
    model: null,
    accepted_attempt: 1,
    first_error: "main.c:11:40: error: 'sum' not specified in enclosing 'parallel'",
    error_class: 'undeclared-in-clause',
    reason: null,
    reason_code: null,
    repaired_earlier: false,
    input_tokens: null,
    output_tokens: null,
    cost_usd: null,
    clause_changes: [],
    may_race: [],
    non_directive_lines_changed: false,
    builtin_rule: 'add-to-reduction',
    written_files: [`patch_generator/${id}/1.patch`],
    backup: `patch_repair/backups/${id}`,
    diagnostic_count: 1,
    diagnostics: [
      {
        file: 'main.c',
        file_id: '1',
        line: 11,
        column: 40,
        severity: 'error',
        message: "'sum' not specified in enclosing 'parallel'",
        error_class: 'undeclared-in-clause',
      },
    ],
    run_check: null,
    race_check: null,
    ignored_files: [],
    duration_s: 1.25,
  };
}

export function resultsFile(runId: string): RunResults {
  return { version: 1, run: runRecord(runId), suggestions: [suggestionRecord('3')] };
}
