// A suggestion's record enters the run as an event; everything that counts records (results.json,
// run-state.json, the summary, `show`) reads it from there.
import { withRunCheck } from '../formats/run-records.js';
import type { SuggestionRecord } from '../formats/results.js';
import type { RunContext } from './session.js';

export function emitFinished(context: Pick<RunContext, 'emit' | 'options'>, record: SuggestionRecord): void {
  context.emit({ type: 'suggestion-finished', record: withRunCheck(record, context.options) });
}
