// One CLI run → CallResult. Pure, so recorded runs of the real CLIs (fixtures/agents/) test it
// without spawning anything.
import { describeOutcome, type RunOutcome } from '../process.js';
import { classifyFailure } from './classify.js';
import type { Descriptor } from '../formats/descriptor.js';
import { parseStructured, type ParsedOutput } from './output.js';
import type { CallUsage, NoAnswerReason } from '../formats/events.js';
import type { CallResult, Conversation } from './types.js';

const DETAIL_CHARS = 600;

export function callResultOf(o: {
  descriptor: Descriptor;
  outcome: RunOutcome;
  conversation: Conversation;
  prompt: string;
  timeoutMs: number;
  executable: string;
  cliVersion?: string;
}): CallResult {
  const { descriptor, outcome } = o;
  const usage: CallUsage = { durationMs: outcome.durationMs, reachedModel: false };
  if (o.cliVersion !== undefined) usage.cliVersion = o.cliVersion;
  switch (outcome.kind) {
    case 'spawn-failed':
      return {
        kind: 'fatal',
        reason: 'misconfigured',
        detail: `${o.executable} ${describeOutcome(outcome)}`,
        usage,
        started: false,
      };
    case 'canceled':
      return { kind: 'no-answer', reason: 'crashed', detail: 'canceled before the agent answered', usage };
    case 'timeout': {
      const killed = `no answer within ${Math.round(o.timeoutMs / 1000)} s (agent timeout); the CLI was killed`;
      const retrying = lastTransientError(descriptor, outcome.stderr);
      return retrying
        ? {
            kind: 'no-answer',
            reason: retrying.reason,
            detail: clip(`${killed} while retrying after: ${retrying.line}`),
            usage,
          }
        : { kind: 'no-answer', reason: 'timeout', detail: killed, usage };
    }
    case 'signaled':
      return { kind: 'no-answer', reason: 'crashed', detail: `${descriptor.name} ${describeOutcome(outcome)}`, usage };
    case 'exited':
      break;
  }

  const parsed = parse(descriptor, outcome.stdout, outcome.exitCode);
  if (parsed.inputTokens !== undefined) usage.inputTokens = parsed.inputTokens;
  if (parsed.outputTokens !== undefined) usage.outputTokens = parsed.outputTokens;
  // A CLI without a price for the model (opencode with a custom provider) reports a cost of 0 for
  // tokens it did use: that cost is unknown, not free.
  const usedTokens = (parsed.inputTokens ?? 0) + (parsed.outputTokens ?? 0) > 0;
  if (parsed.costUsd !== undefined && !(parsed.costUsd === 0 && usedTokens)) usage.costUsd = parsed.costUsd;
  const answered = outcome.exitCode === 0 && parsed.answered;
  usage.reachedModel = answered || (parsed.outputTokens ?? 0) > 0;

  // An exit code alone never makes an answer: the parsed output must say so too (agents.md §3).
  if (answered) {
    const next: Conversation = {
      id: o.conversation.id,
      dir: o.conversation.dir,
      turns: [...o.conversation.turns, { prompt: o.prompt, answer: parsed.text }],
    };
    if (parsed.sessionId !== undefined) next.sessionId = parsed.sessionId;
    return { kind: 'answered', text: parsed.text, conversation: next, usage };
  }

  const stderr = lastLines(outcome.stderr);
  const message =
    parsed.error?.message ??
    (outcome.exitCode === 0
      ? `exited 0 without a final result${outcome.truncated ? ' (output cut at the size limit)' : ''}`
      : stderr || `exited with code ${outcome.exitCode} and printed no error`);
  const fixed = descriptor.exitCodes[String(outcome.exitCode)];
  const failure = fixed
    ? classifyFailure({ descriptor: { signs: [{ pattern: '', reason: fixed }] }, message })
    : // stderr only when the output gave no error: opencode logs every retry's error there.
      classifyFailure({
        descriptor,
        message,
        status: parsed.error?.status,
        stderr: parsed.error ? undefined : outcome.stderr,
      });
  const status = parsed.error?.status !== undefined ? ` (HTTP ${parsed.error.status})` : '';
  const detail = clip(`${message}${status}`);
  return failure.kind === 'fatal'
    ? { kind: 'fatal', reason: failure.reason, detail, usage }
    : { kind: 'no-answer', reason: failure.reason, detail, usage };
}

function parse(descriptor: Descriptor, stdout: string, exitCode: number): ParsedOutput {
  if (descriptor.output.format === 'text') return { parsed: true, answered: exitCode === 0, text: stdout };
  return parseStructured(stdout, descriptor.output);
}

/**
 * A CLI that retries on its own (opencode makes 6 attempts over minutes, with no switch to make
 * fewer) is often killed mid-retry; the error it logged says why better than "timeout" does,
 * e.g. that the provider was unreachable the whole time.
 */
function lastTransientError(descriptor: Descriptor, stderr: string): { reason: NoAnswerReason; line: string } | null {
  const lines = stderr.split('\n').filter((l) => /error/i.test(l));
  const line = lines[lines.length - 1];
  if (line === undefined) return null;
  const failure = classifyFailure({ descriptor, message: line });
  if (failure.kind === 'fatal' || failure.reason === 'crashed') return null;
  return { reason: failure.reason, line: line.trim() };
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-5).join(' | ');
}

function clip(text: string): string {
  return text.length > DETAIL_CHARS ? `${text.slice(0, DETAIL_CHARS)}…` : text;
}
