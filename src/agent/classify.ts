// Why a call produced no answer, from the CLI's own error message, the HTTP status it reports
// and its stderr. Fatal reasons stop every agent call of the run (design.md "Fatal agent
// errors"), so they need positive evidence; anything unrecognised is a transient "crashed".
import type { Descriptor } from '../formats/descriptor.js';
import { isFatalReason, type FatalReason, type NoAnswerReason } from '../formats/events.js';

export type Failure = { kind: 'fatal'; reason: FatalReason } | { kind: 'no-answer'; reason: NoAnswerReason };

function asFailure(reason: FatalReason | NoAnswerReason): Failure {
  return isFatalReason(reason) ? { kind: 'fatal', reason } : { kind: 'no-answer', reason };
}

// Providers report an exhausted balance with other statuses too (Anthropic: 400 "credit balance
// is too low"; OpenAI: 429 "insufficient_quota"), so these words win over the status.
const QUOTA_WORDS =
  /credit balance is too low|insufficient[_ ]quota|exceeded your current quota|quota exceeded|out of credits|insufficient (credits|balance|funds)|payment required|usage limit reached/i;
const AUTH_WORDS =
  /not logged in|please run \/login|invalid[ _-]?(x-)?api[ _-]?key|authentication[_ ]error|unauthorized|invalid bearer|oauth token (has )?expired/i;
const MISCONFIGURED_WORDS =
  /unknown option|unknown argument|unknown command|model not found|model_not_found|not_found_error|ProviderModelNotFound|no such model|invalid model/i;
const RATE_WORDS = /rate[ _-]?limit|too many requests/i;
const TIMEOUT_WORDS = /timed out|timeout/i;
const UNREACHABLE_WORDS =
  /unable to connect|cannot connect|connection ?refused|econnrefused|econnreset|enotfound|eai_again|socket connection was closed|socket hang up|network error|fetch failed/i;
const SERVER_WORDS = /overloaded|server[_ ]error|internal server error|bad gateway|service unavailable|\b5\d\d\b/i;

export function classifyFailure(o: {
  descriptor: Pick<Descriptor, 'signs'>;
  message: string;
  status?: number;
  stderr?: string;
}): Failure {
  const text = `${o.message}\n${o.stderr ?? ''}`;
  for (const sign of o.descriptor.signs) {
    if (new RegExp(sign.pattern, 'i').test(text)) return asFailure(sign.reason);
  }
  if (QUOTA_WORDS.test(text) || o.status === 402) return asFailure('quota');
  if (o.status === 401 || o.status === 403 || AUTH_WORDS.test(text)) return asFailure('auth');
  if (o.status === 404) return asFailure('misconfigured');
  if (o.status === 429) return asFailure('rate-limited');
  if (o.status === 408) return asFailure('timeout');
  if (o.status !== undefined && o.status >= 500) return asFailure('server-error');
  if (MISCONFIGURED_WORDS.test(text)) return asFailure('misconfigured');
  if (RATE_WORDS.test(text)) return asFailure('rate-limited');
  if (UNREACHABLE_WORDS.test(text)) return asFailure('unreachable');
  if (TIMEOUT_WORDS.test(text)) return asFailure('timeout');
  if (SERVER_WORDS.test(text)) return asFailure('server-error');
  return asFailure('crashed');
}
