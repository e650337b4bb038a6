// A suggestion's record enters the run as an event; everything that counts records (results.json,
// run-state.json, the summary, `show`) reads it from there.
import { withRunCheck } from '../formats/suggestion-records.js';
import type { SuggestionRecord } from '../formats/results.js';
import type { RunContext } from './session.js';

/** Emits the record as the run keeps it (with --check-run, saying whether it ran) and returns that. */
export function emitFinished(
  context: Pick<RunContext, 'emit' | 'options'>,
  record: SuggestionRecord,
): SuggestionRecord {
  const kept = withRunCheck(record, context.options);
  context.emit({ type: 'suggestion-finished', record: kept });
  return kept;
}
