// The attempt loop for one failing suggestion: the built-in repairer first (no agent budget), then
// up to --prompts fresh agent conversations, one ladder rung each, each with up to --retries
// follow-ups that say only what was wrong. Answered calls are capped by --max-attempts; a call
// without an answer is repeated in place from --agent-error-retries and never counts as a try.
import { builtinRepair } from '../builtin/index.js';
import type { CallResult, Conversation } from '../agent/types.js';
import type { CallUsage } from '../formats/events.js';
import { loadPromptLadder, type PromptLadder } from './ladder.js';
import { followUpPrompt, rungPrompt, type BuiltPrompt } from './prompt.js';
import type { BuiltinResult, RepairTask } from '../formats/task.js';
import type { AttemptRecord, Verification } from '../formats/attempt.js';
import type { BuiltinInfo, OutcomeCommon, RepairedOutcome, RepairOutcome, UnrepairedOutcome, UsageTotals } from '../formats/outcome.js';
import type { RepairDeps } from './deps.js';
import { mayRace } from './checks/strict.js';
import { verify } from './verify.js';

/** Counters of one suggestion's repair, turned into the outcome at the end. */
class SuggestionTally {
  /** Number of the last try under attempts/<id>/, builtin and agent together. */
  tries = 0;
  calls = 0;
  unanswered = 0;
  answered = 0;
  usage: UsageTotals = { inputTokens: null, outputTokens: null, costUsd: null };
  builtin: BuiltinInfo = { tries: 0, accepted: false, declined: null };
  lastRejection: string | null = null;
}

export async function repairSuggestion(task: RepairTask, deps: RepairDeps): Promise<RepairOutcome> {
  const tally = new SuggestionTally();
  const common = (): OutcomeCommon => ({
    attempts: tally.calls,
    unanswered: tally.unanswered,
    builtin: tally.builtin,
    firstError: task.build.firstError ?? null,
    usage: { ...tally.usage },
  });
  const unrepaired = (status: UnrepairedOutcome['status'], reason: string): RepairOutcome => ({ ...common(), status, reason });

  if (deps.budget.fatal) return unrepaired('skipped', deps.budget.stop()!.reason);

  if (deps.options.builtin) {
    const verification = await builtinTry(task, deps, tally);
    if (verification?.accepted) return accepted(verification, 'builtin', tally.tries, common(), task);
  }
  if (!deps.agent) {
    return unrepaired('failed', tally.builtin.declined ? `built-in repairer: ${tally.builtin.declined}; no agent available` : 'no agent available and the built-in repairer is off (--no-builtin)');
  }

  const outcome = await agentTries(task, deps, tally, common);
  if (tally.calls > 0) deps.budget.noteSuggestion(tally.answered > 0);
  return outcome;
}

async function builtinTry(task: RepairTask, deps: RepairDeps, tally: SuggestionTally): Promise<Verification | null> {
  const attempt = ++tally.tries;
  tally.builtin.tries += 1;
  const id = task.suggestion.id;
  deps.emit({ type: 'call-started', id, attempt, tier: 'builtin', prompt: 1, turn: 0 });
  const started = Date.now();
  const result: BuiltinResult = await builtinRepair(task);
  deps.emit({
    type: 'call-finished',
    id,
    attempt,
    tier: 'builtin',
    outcome: result.kind === 'answer' ? 'answered' : 'declined',
    detail: result.kind === 'declined' ? result.reason : null,
    duration_ms: Date.now() - started,
    input_tokens: null,
    output_tokens: null,
    cost_usd: null,
    cli_version: null,
    backend: 'builtin',
    model: null,
  });
  const record = { id, attempt, tier: 'builtin', conversation: 0, turn: 0, prompt: null, usage: null } satisfies Partial<AttemptRecord>;
  if (result.kind === 'declined') {
    tally.builtin.declined = `declined: ${result.reason}`;
    await deps.attempts.write({ ...record, source: 'builtin', answer: null, callOutcome: 'declined', callDetail: result.reason, verification: null });
    return null;
  }
  const verification = await checkAnswer(result.text, task, deps, attempt);
  await deps.attempts.write({ ...record, source: `builtin: ${result.rules.join(', ')}`, answer: result.text, callOutcome: 'answered', callDetail: null, verification });
  tally.builtin.accepted = verification.accepted;
  if (!verification.accepted) tally.builtin.declined = `rejected at ${verification.rejectedBy}: ${verification.reason}`;
  return verification;
}

async function agentTries(task: RepairTask, deps: RepairDeps, tally: SuggestionTally, common: () => OutcomeCommon): Promise<RepairOutcome> {
  const agent = deps.agent!;
  const { options } = deps;
  const id = task.suggestion.id;
  const ladder: PromptLadder = deps.ladder ?? (await loadPromptLadder(options.promptDir));
  let errorAllowance = options.agent.agentErrorRetries;
  const stopped = (status: UnrepairedOutcome['status'], reason: string): UnrepairedOutcome => ({ ...common(), status, reason });

  // Why no further call may be made now: an interrupt, the run-level budget, or --max-attempts.
  const blocked = (): UnrepairedOutcome | null => {
    if (deps.signal.aborted) return stopped('skipped', 'interrupted');
    const stop = deps.budget.stop();
    if (stop) return stopped(stop.kind === 'endpoint-down' ? 'agent_unreachable' : 'skipped', stop.reason);
    if (tally.answered >= options.agent.maxAttempts) return stopped('failed', exhausted(tally, `--max-attempts ${options.agent.maxAttempts} reached`));
    return null;
  };

  for (let conversationNo = 1; conversationNo <= options.agent.prompts; conversationNo += 1) {
    const before = blocked();
    if (before) return before;
    let conversation: Conversation = await agent.open();
    try {
      let prompt: BuiltPrompt = rungPrompt({ ladder, conversation: conversationNo, task, limits: options });
      for (let turn = 0; turn <= options.agent.retries; turn += 1) {
        // Repeat the call in place until it is answered; unanswered calls use their own allowance.
        for (;;) {
          const stop = blocked();
          if (stop) return stop;
          const attempt = ++tally.tries;
          const result = await call(deps, conversation, prompt.text, { id, attempt, conversationNo, turn });
          tally.calls += 1;
          tally.usage = addUsage(tally.usage, result.usage);
          deps.budget.addCost(result.usage.costUsd);
          const record = { id, attempt, tier: 'agent', conversation: conversationNo, turn, source: prompt.template, prompt: prompt.text, usage: result.usage } satisfies Partial<AttemptRecord>;
          if (result.kind === 'answered') {
            tally.answered += 1;
            conversation = result.conversation;
            const verification = await checkAnswer(result.text, task, deps, attempt);
            await deps.attempts.write({ ...record, answer: result.text, callOutcome: 'answered', callDetail: null, verification });
            if (verification.accepted) return accepted(verification, 'agent', attempt, common(), task);
            tally.lastRejection = `attempt ${attempt} rejected at ${verification.rejectedBy}: ${verification.reason}`;
            prompt = followUpPrompt({ ladder, task, check: verification.rejectedBy, reason: verification.reason, limits: options });
            break;
          }
          tally.unanswered += 1;
          await deps.attempts.write({ ...record, answer: null, callOutcome: result.reason, callDetail: result.detail, verification: null });
          if (result.kind === 'fatal') {
            deps.budget.setFatal(result.reason, result.detail);
            return stopped('skipped', deps.budget.stop()!.reason);
          }
          if (errorAllowance === 0) {
            return stopped('agent_unreachable', `no answer from the agent (${result.reason}: ${result.detail}); --agent-error-retries ${options.agent.agentErrorRetries} spent`);
          }
          errorAllowance -= 1;
        }
      }
    } finally {
      await agent.close(conversation);
    }
  }
  return stopped('failed', exhausted(tally, `${options.agent.prompts} conversation(s) × ${options.agent.retries} follow-up(s) used`));
}

async function call(deps: RepairDeps, conversation: Conversation, prompt: string, at: { id: string; attempt: number; conversationNo: number; turn: number }): Promise<CallResult> {
  const { id, attempt } = at;
  deps.emit({ type: 'call-started', id, attempt, tier: 'agent', prompt: at.conversationNo, turn: at.turn });
  const result = await deps.agent!.call(conversation, prompt, deps.signal);
  deps.emit({
    type: 'call-finished',
    id,
    attempt,
    tier: 'agent',
    outcome: result.kind === 'answered' ? 'answered' : result.reason,
    detail: result.kind === 'answered' ? null : result.detail,
    duration_ms: result.usage.durationMs,
    input_tokens: result.usage.inputTokens ?? null,
    output_tokens: result.usage.outputTokens ?? null,
    cost_usd: result.usage.costUsd ?? null,
    cli_version: result.usage.cliVersion ?? null,
    backend: deps.agent!.backend,
    model: deps.agent!.model,
  });
  return result;
}

async function checkAnswer(answer: string, task: RepairTask, deps: RepairDeps, attempt: number): Promise<Verification> {
  const verification = await verify(answer, task, { dp: deps.dp, options: deps.options, pool: deps.pool, scratchDir: deps.scratchDir });
  for (const candidate of verification.candidates) {
    for (const check of candidate.checks) deps.emit({ type: 'check', id: task.suggestion.id, attempt, candidate: candidate.candidate, candidates: verification.candidates.length, ...check });
  }
  return verification;
}

function accepted(verification: Verification & { accepted: true }, tier: 'builtin' | 'agent', attempt: number, common: OutcomeCommon, task: RepairTask): RepairedOutcome {
  return {
    ...common,
    status: 'repaired',
    canonical: verification.canonical,
    changedFiles: verification.changedFiles,
    acceptedAttempt: attempt,
    tier,
    clauseChanges: verification.clauseChanges,
    nonDirectiveLinesChanged: verification.nonDirectiveLinesChanged,
    mayRace: mayRace(verification.clauseChanges, task.build),
    build: verification.build,
  };
}

function exhausted(tally: SuggestionTally, why: string): string {
  return tally.lastRejection ? `no candidate passed verification (${why}); last: ${tally.lastRejection}` : `no candidate passed verification (${why})`;
}

/** Adds what one call reported; a total stays null until some call reports that figure. */
function addUsage(total: UsageTotals, usage: CallUsage): UsageTotals {
  const add = (sum: number | null, value: number | undefined) => (value === undefined || !Number.isFinite(value) ? sum : (sum ?? 0) + value);
  return { inputTokens: add(total.inputTokens, usage.inputTokens), outputTokens: add(total.outputTokens, usage.outputTokens), costUsd: add(total.costUsd, usage.costUsd) };
}
