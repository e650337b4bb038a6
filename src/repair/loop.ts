// The attempt loop for one failing suggestion: the built-in repairer first (no agent budget), then
// up to --prompts fresh agent conversations, one ladder rung each, each with up to --retries
// follow-ups that say only what was wrong. Answered calls are capped by --max-attempts; a call
// without an answer is repeated in place from --agent-error-retries and never counts against
// --max-attempts, though it gets an attempt folder of its own.
import { builtinRepair } from '../builtin/index.js';
import type { CallResult, Conversation } from '../agent/types.js';
import type { CallUsage } from '../formats/events.js';
import { loadPromptLadder, type PromptLadder } from './ladder.js';
import { builtinRunFinding, followUpPrompt, rungPrompt, type BuiltinRunFinding, type BuiltPrompt } from './prompt.js';
import type { BuiltinResult, RepairTask } from '../formats/task.js';
import { isBuildFailure } from '../formats/types.js';
import type { AttemptRecord, AttemptPlace, Verification } from '../formats/attempt.js';
import type {
  BuiltinInfo,
  OutcomeCommon,
  PriorAttempt,
  RepairedOutcome,
  RepairOutcome,
  UnrepairedOutcome,
  UsageTotals,
} from '../formats/outcome.js';
import type { RaceCheck, ReasonCode, RunCheck } from '../formats/results.js';
import type { AgentStop } from './budget.js';
import type { RepairDeps } from './deps.js';
import { mayRace } from './checks/strict.js';
import { verify } from './verify.js';

const NO_USAGE: UsageTotals = { inputTokens: null, outputTokens: null, costUsd: null };

/** Counters of one suggestion's repair, turned into the outcome at the end. */
class SuggestionTally {
  /** Number of the last attempt under attempts/<id>/, builtin and agent together. */
  attempts = 0;
  calls = 0;
  unanswered = 0;
  answered = 0;
  usage: UsageTotals = NO_USAGE;
  builtin: BuiltinInfo = { tries: 0, accepted: false, declined: null };
  lastRejection: string | null = null;
  /** Check 7's runs of the last candidate they rejected. */
  runCheck: RunCheck | null = null;
  /** The race check of the last candidate it rejected. */
  raceCheck: RaceCheck | null = null;
  /** The built-in candidate check 7 rejected, told to every fresh agent conversation. */
  builtinRunFinding: BuiltinRunFinding | null = null;

  builtinRejected(answer: string | null, source: string, rejectedBy: string | null, reason: string): void {
    this.builtin.declined = `rejected at ${rejectedBy}: ${reason}`;
    if (rejectedBy === 'runs' && answer !== null)
      this.builtinRunFinding = builtinRunFinding(answer, source.slice(BUILTIN_SOURCE_PREFIX.length), reason);
  }
}

/**
 * `prior`: what a stopped run already did for this suggestion (--resume). Its counters carry over,
 * an answer it never finished checking (or accepted but did not write) is checked again without a
 * call, and the agent continues where the ladder stood: no answered call is asked again.
 */
export async function repairSuggestion(
  task: RepairTask,
  deps: RepairDeps,
  prior: readonly PriorAttempt[] = [],
): Promise<RepairOutcome> {
  const tally = new SuggestionTally();
  const common = (): OutcomeCommon => ({
    calls: tally.calls,
    unanswered: tally.unanswered,
    builtin: tally.builtin,
    firstError: task.build.firstError ?? null,
    usage: { ...tally.usage },
    runCheck: tally.runCheck,
    raceCheck: tally.raceCheck,
  });
  const unrepaired = (status: UnrepairedOutcome['status'], reasonCode: ReasonCode, reason: string): RepairOutcome => ({
    ...common(),
    status,
    reason,
    reasonCode,
  });

  if (deps.budget.stoppedByFatalError) return unrepaired('skipped', 'fatal-agent', deps.budget.stop()!.reason);
  const notOpenMp = pseudoDirectiveReason(task);
  if (notOpenMp !== null) return unrepaired('failed', 'not-openmp', notOpenMp);

  const attempts = [...prior].sort((a, b) => a.attempt - b.attempt);
  restoreTally(tally, attempts);
  const last = attempts.at(-1);
  if (last && last.answer !== null && (last.outcome === 'pending' || last.outcome === 'accepted')) {
    const verification = await checkAnswer(last.answer, task, deps, last.attempt, tally);
    const record = {
      id: task.suggestion.id,
      attempt: last.attempt,
      tier: last.tier,
      conversation: last.conversation,
      turn: last.turn,
      source: last.source,
      prompt: last.prompt,
      usage: null,
    } satisfies Partial<AttemptRecord>;
    await deps.attempts.write({
      ...record,
      answer: last.answer,
      callOutcome: 'answered',
      callDetail: null,
      verification,
    });
    if (verification.accepted) return accepted(verification, last, common(), task);
    const { rejectedBy, reason } = verification;
    // The attempt checked again is rejected now: where the ladder goes on from reads this, not the prior one.
    attempts[attempts.length - 1] = { ...last, outcome: 'rejected', rejectedBy, reason };
    if (last.tier === 'builtin') tally.builtinRejected(last.answer, last.source, rejectedBy, reason);
    else tally.lastRejection = `attempt ${last.attempt} rejected at ${rejectedBy}: ${reason}`;
  }

  if (deps.options.builtin && !attempts.some((t) => t.tier === 'builtin')) {
    const tried = await builtinAttempt(task, deps, tally);
    if (tried?.verification.accepted) return accepted(tried.verification, tried.place, common(), task);
  }
  if (!deps.agent) {
    return unrepaired(
      'failed',
      'no-repairer',
      tally.builtin.declined
        ? `built-in repairer: ${tally.builtin.declined}; no agent available`
        : 'no agent available and the built-in repairer is off (--no-builtin)',
    );
  }

  const outcome = await agentAttempts(
    task,
    deps,
    tally,
    common,
    resumePosition(
      attempts.filter((t) => t.tier === 'agent'),
      deps.options.agent.retries,
    ),
  );
  if (tally.calls > 0) deps.budget.noteSuggestion(tally.answered > 0);
  return outcome;
}

/**
 * DiscoPoP's device-update pseudo-directive builds only once its line is deleted or replaced, and
 * check 5 refuses both: no attempt, built-in or agent, could be accepted, so none is made.
 */
function pseudoDirectiveReason(task: RepairTask): string | null {
  const error = task.build.diagnostics.find((d) => isBuildFailure(d) && d.errorClass === 'pseudo-directive');
  if (error === undefined) return null;
  const text =
    error.fileId === undefined || error.line === undefined
      ? undefined
      : task.patched.get(error.fileId)?.split('\n')[error.line - 1]?.trim();
  const place = [error.file, error.line].filter((part) => part !== undefined).join(':');
  return `${place}: '${text ?? 'the added line'}' is not an OpenMP directive (DiscoPoP's update between two devices, which OpenMP cannot express); no repair can keep it, so the suggestion must be regenerated`;
}

/** Where the agent attempts continue: the conversation and turn of the next call, and what it says. */
interface Position {
  conversation: number;
  turn: number;
  /** The rejection the next call is a follow-up to; null for a conversation's first call. */
  followUp: { check: string; reason: string } | null;
  /** The answered turns of the conversation so far, replayed to the agent in one fresh call. */
  turns: { prompt: string; answer: string }[];
  unanswered: number;
}

function resumePosition(agentAttempts: readonly PriorAttempt[], retries: number): Position {
  const last = agentAttempts.at(-1);
  const unanswered = agentAttempts.filter((t) => t.outcome === 'unanswered' || t.outcome === 'fatal').length;
  if (!last) return { conversation: 1, turn: 0, followUp: null, turns: [], unanswered };
  const answered = (conversation: number, beforeTurn: number) =>
    agentAttempts.filter(
      (t) =>
        t.conversation === conversation &&
        t.turn < beforeTurn &&
        t.outcome === 'rejected' &&
        t.prompt !== null &&
        t.answer !== null,
    );
  const position = (conversation: number, turn: number): Position => {
    const turns = answered(conversation, turn);
    const previous = turns.at(-1);
    const followUp =
      turn > 0 && previous ? { check: previous.rejectedBy ?? 'extraction', reason: previous.reason ?? '' } : null;
    return {
      conversation,
      turn,
      followUp,
      turns: turns.map((t) => ({ prompt: t.prompt!, answer: t.answer! })),
      unanswered,
    };
  };
  if (last.outcome === 'rejected')
    return last.turn < retries ? position(last.conversation, last.turn + 1) : position(last.conversation + 1, 0);
  return position(last.conversation, last.turn);
}

function restoreTally(tally: SuggestionTally, attempts: readonly PriorAttempt[]): void {
  for (const t of attempts) {
    tally.attempts = Math.max(tally.attempts, t.attempt);
    if (t.outcome === 'rejected' && t.runCheck) tally.runCheck = t.runCheck;
    if (t.outcome === 'rejected' && t.raceCheck) tally.raceCheck = t.raceCheck;
    if (t.tier === 'builtin') {
      tally.builtin.tries += 1;
      tally.builtin.accepted = t.outcome === 'accepted';
      tally.builtin.declined = t.outcome === 'declined' ? `declined: ${t.reason ?? ''}` : null;
      if (t.outcome === 'rejected') tally.builtinRejected(t.answer, t.source, t.rejectedBy, t.reason ?? '');
      continue;
    }
    tally.calls += 1;
    tally.usage = addTotals(tally.usage, t.usage);
    if (t.outcome === 'unanswered' || t.outcome === 'fatal') tally.unanswered += 1;
    else tally.answered += 1;
    if (t.outcome === 'rejected') tally.lastRejection = `attempt ${t.attempt} rejected at ${t.rejectedBy}: ${t.reason}`;
  }
}

async function builtinAttempt(
  task: RepairTask,
  deps: RepairDeps,
  tally: SuggestionTally,
): Promise<{ verification: Verification; place: AcceptedPlace } | null> {
  const attempt = ++tally.attempts;
  tally.builtin.tries += 1;
  const id = task.suggestion.id;
  deps.emit({ type: 'call-started', id, attempt, tier: 'builtin', prompt: 0, turn: 0 });
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
  const record = {
    id,
    attempt,
    tier: 'builtin',
    conversation: 0,
    turn: 0,
    prompt: null,
    usage: null,
  } satisfies Partial<AttemptRecord>;
  if (result.kind === 'declined') {
    tally.builtin.declined = `declined: ${result.reason}`;
    await deps.attempts.write({
      ...record,
      source: 'builtin',
      answer: null,
      callOutcome: 'declined',
      callDetail: result.reason,
      verification: null,
    });
    return null;
  }
  const verification = await checkAnswer(result.text, task, deps, attempt, tally);
  const source = `${BUILTIN_SOURCE_PREFIX}${result.rules.join(', ')}`;
  await deps.attempts.write({
    ...record,
    source,
    answer: result.text,
    callOutcome: 'answered',
    callDetail: null,
    verification,
  });
  tally.builtin.accepted = verification.accepted;
  if (!verification.accepted) tally.builtinRejected(result.text, source, verification.rejectedBy, verification.reason);
  return { verification, place: { tier: 'builtin', attempt, source } };
}

async function agentAttempts(
  task: RepairTask,
  deps: RepairDeps,
  tally: SuggestionTally,
  common: () => OutcomeCommon,
  start: Position,
): Promise<RepairOutcome> {
  const { options } = deps;
  const ladder: PromptLadder = deps.ladder ?? (await loadPromptLadder(options.promptDir, {}));
  const stops = agentStops(deps, tally, common);
  const allowance = { left: Math.max(0, options.agent.agentErrorRetries - start.unanswered) };
  for (let conversationNo = start.conversation; conversationNo <= options.agent.prompts; conversationNo += 1) {
    const before = stops.blocked();
    if (before) return before;
    const resumed = conversationNo === start.conversation && start.turn > 0 ? start : null;
    const ended = await converse(task, deps, tally, { stops, common, ladder, allowance, conversationNo, resumed });
    if (ended) return ended;
  }
  return stops.stopped(
    'failed',
    'not-verified',
    exhausted(tally, `${options.agent.prompts} conversation(s) × ${options.agent.retries} follow-up(s) used`),
  );
}

/**
 * One conversation: its rung's prompt (or, `resumed`, the follow-up where a stopped run left it),
 * then a follow-up after each rejection, up to --retries. The outcome when the suggestion ends in
 * it; null when the next conversation may start.
 */
async function converse(
  task: RepairTask,
  deps: RepairDeps,
  tally: SuggestionTally,
  o: {
    stops: Stops;
    common: () => OutcomeCommon;
    ladder: PromptLadder;
    allowance: { left: number };
    conversationNo: number;
    resumed: Position | null;
  },
): Promise<RepairOutcome | null> {
  const agent = deps.agent!;
  const limits = deps.options;
  const { ladder, conversationNo, resumed } = o;
  // A resumed conversation has no session to continue: its answered turns are replayed.
  let conversation: Conversation = resumed ? { ...(await agent.open()), turns: resumed.turns } : await agent.open();
  try {
    let prompt: BuiltPrompt = resumed?.followUp
      ? followUpPrompt({ ladder, task, ...resumed.followUp, limits })
      : rungPrompt({ ladder, conversation: conversationNo, task, limits, builtinFinding: tally.builtinRunFinding });
    for (let turn = resumed?.turn ?? 0; turn <= limits.agent.retries; turn += 1) {
      const asked = await askUntilAnswered(task, deps, tally, o.stops, {
        conversation,
        prompt,
        conversationNo,
        turn,
        allowance: o.allowance,
      });
      if (asked.kind === 'ended') return asked.outcome;
      conversation = asked.conversation;
      const { verification } = asked;
      const place = { tier: 'agent', attempt: asked.attempt, source: prompt.template } as const;
      if (verification.accepted) return accepted(verification, place, o.common(), task);
      prompt = followUpPrompt({ ladder, task, check: verification.rejectedBy, reason: verification.reason, limits });
    }
    return null;
  } finally {
    await agent.close(conversation);
  }
}

/** How the agent's attempts end without a repair, and why no further call may be made now. */
function agentStops(deps: RepairDeps, tally: SuggestionTally, common: () => OutcomeCommon) {
  const stopped = (status: UnrepairedOutcome['status'], reasonCode: ReasonCode, reason: string): UnrepairedOutcome => ({
    ...common(),
    status,
    reason,
    reasonCode,
  });
  const agentStopped = (stop: AgentStop) =>
    stopped(stop.kind === 'endpoint-down' ? 'agent_unreachable' : 'skipped', stop.kind, stop.reason);
  // An interrupt, the run-level budget, or --max-attempts.
  const blocked = (): UnrepairedOutcome | null => {
    if (deps.signal.aborted) return stopped('skipped', 'interrupted', 'interrupted');
    const stop = deps.budget.stop();
    if (stop) return agentStopped(stop);
    const max = deps.options.agent.maxAttempts;
    if (tally.answered >= max)
      return stopped('failed', 'not-verified', exhausted(tally, `--max-attempts ${max} reached`));
    return null;
  };
  return { stopped, agentStopped, blocked };
}

type Stops = ReturnType<typeof agentStops>;

type Asked =
  | { kind: 'answered'; conversation: Conversation; verification: Verification; attempt: number }
  | { kind: 'ended'; outcome: UnrepairedOutcome };

/** One turn: its call repeated in place until it is answered; unanswered calls use their own allowance. */
async function askUntilAnswered(
  task: RepairTask,
  deps: RepairDeps,
  tally: SuggestionTally,
  stops: Stops,
  at: {
    conversation: Conversation;
    prompt: BuiltPrompt;
    conversationNo: number;
    turn: number;
    allowance: { left: number };
  },
): Promise<Asked> {
  const id = task.suggestion.id;
  for (;;) {
    const made = await callWithinBudget(deps, tally, stops, { ...at, id });
    if ('ended' in made) return { kind: 'ended', outcome: made.ended };
    const { attempt, result, called } = made;
    const record = {
      id,
      attempt,
      tier: 'agent',
      conversation: at.conversationNo,
      turn: at.turn,
      source: at.prompt.template,
      prompt: at.prompt.text,
      usage: result.usage,
    } satisfies Partial<AttemptRecord>;
    if (result.kind === 'answered') {
      tally.answered += 1;
      const verification = await checkAnswer(result.text, task, deps, attempt, tally);
      await deps.attempts.write({
        ...record,
        answer: result.text,
        callOutcome: 'answered',
        callDetail: null,
        verification,
      });
      if (!verification.accepted)
        tally.lastRejection = `attempt ${attempt} rejected at ${verification.rejectedBy}: ${verification.reason}`;
      return { kind: 'answered', conversation: result.conversation, verification, attempt };
    }
    if (called) tally.unanswered += 1;
    await deps.attempts.write({
      ...record,
      answer: null,
      callOutcome: result.reason,
      callDetail: result.detail,
      verification: null,
    });
    const ended = afterUnanswered(result, deps, stops, at.allowance);
    if (ended) return { kind: 'ended', outcome: ended };
  }
}

/** One call, if the run's budget and an interrupt allow it, counted in the tally. */
async function callWithinBudget(
  deps: RepairDeps,
  tally: SuggestionTally,
  stops: Stops,
  at: { id: string; conversation: Conversation; prompt: BuiltPrompt; conversationNo: number; turn: number },
): Promise<{ ended: UnrepairedOutcome } | { attempt: number; result: CallResult; called: boolean }> {
  const stop = stops.blocked();
  if (stop) return { ended: stop };
  const refused = await deps.budget.beginCall();
  if (refused) return { ended: stops.agentStopped(refused) };
  if (deps.signal.aborted) {
    deps.budget.endCall(undefined);
    return { ended: stops.stopped('skipped', 'interrupted', 'interrupted') };
  }
  const attempt = ++tally.attempts;
  let result: CallResult | undefined;
  try {
    result = await call(deps, at.conversation, at.prompt, { ...at, attempt });
  } finally {
    deps.budget.endCall(result?.usage.costUsd);
  }
  // A CLI that could not be started was not called: neither a call nor an unanswered one.
  const called = !(result.kind === 'fatal' && result.started === false);
  if (called) tally.calls += 1;
  tally.usage = addUsage(tally.usage, result.usage);
  return { attempt, result, called };
}

/** After a call without an answer: a fatal error stops every call; else the allowance pays for the next, or is spent. */
function afterUnanswered(
  result: Exclude<CallResult, { kind: 'answered' }>,
  deps: RepairDeps,
  stops: Stops,
  allowance: { left: number },
): UnrepairedOutcome | null {
  if (result.kind === 'fatal') {
    deps.budget.setFatal(result.reason, result.detail);
    return stops.stopped('skipped', 'fatal-agent', deps.budget.stop()!.reason);
  }
  // A call cancelled by another suggestion's fatal error, or cut short by the breaker, is no reason
  // to spend this suggestion's allowance.
  const after = stops.blocked();
  if (after) return after;
  if (allowance.left === 0) {
    return stops.stopped(
      'agent_unreachable',
      'agent-unreachable',
      `no answer from the agent (${result.reason}: ${result.detail}); --agent-error-retries ${deps.options.agent.agentErrorRetries} spent`,
    );
  }
  allowance.left -= 1;
  return null;
}

async function call(
  deps: RepairDeps,
  conversation: Conversation,
  prompt: BuiltPrompt,
  at: { id: string; attempt: number; conversationNo: number; turn: number },
): Promise<CallResult> {
  const { id, attempt } = at;
  deps.emit({
    type: 'call-started',
    id,
    attempt,
    tier: 'agent',
    prompt: at.conversationNo,
    turn: at.turn,
    template: prompt.template,
  });
  // Cancelled by an interrupt, or by a fatal agent error in another suggestion's call.
  const result = await deps.agent!.call(conversation, prompt.text, AbortSignal.any([deps.signal, deps.budget.signal]));
  // Recorded before anything else happens: from here on a killed run never asks for it again.
  if (result.kind === 'answered') {
    await deps.attempts.writeAnswer({
      id,
      attempt,
      tier: 'agent',
      conversation: at.conversationNo,
      turn: at.turn,
      source: prompt.template,
      prompt: prompt.text,
      answer: result.text,
      usage: addUsage(NO_USAGE, result.usage),
    });
  }
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

async function checkAnswer(
  answer: string,
  task: RepairTask,
  deps: RepairDeps,
  attempt: number,
  tally: SuggestionTally,
): Promise<Verification> {
  const verification = await verify(answer, task, deps);
  if (!verification.accepted && verification.runCheck) tally.runCheck = verification.runCheck;
  if (!verification.accepted && verification.raceCheck) tally.raceCheck = verification.raceCheck;
  for (const alternative of verification.alternatives) {
    for (const check of alternative.checks)
      deps.emit({
        type: 'check',
        id: task.suggestion.id,
        attempt,
        candidate: alternative.alternative,
        candidates: verification.alternatives.length,
        ...check,
      });
  }
  return verification;
}

/** The verdict's `source` of a built-in attempt names the rules after this prefix (attempts/<id>/<n>/verdict.json). */
const BUILTIN_SOURCE_PREFIX = 'builtin: ';

type AcceptedPlace = Pick<AttemptPlace, 'tier' | 'attempt' | 'source'>;

function accepted(
  verification: Verification & { accepted: true },
  place: AcceptedPlace,
  common: OutcomeCommon,
  task: RepairTask,
): RepairedOutcome {
  return {
    ...common,
    status: 'repaired',
    canonical: verification.canonical,
    changedFiles: verification.changedFiles,
    acceptedAttempt: place.attempt,
    tier: place.tier,
    builtinRule:
      place.tier === 'builtin' && place.source.startsWith(BUILTIN_SOURCE_PREFIX)
        ? place.source.slice(BUILTIN_SOURCE_PREFIX.length)
        : null,
    clauseChanges: verification.clauseChanges,
    nonDirectiveLinesChanged: verification.nonDirectiveLinesChanged,
    mayRace: mayRace(verification.clauseChanges, task.build),
    build: verification.build,
    runCheck: verification.runCheck,
    raceCheck: verification.raceCheck,
  };
}

function exhausted(tally: SuggestionTally, why: string): string {
  return tally.lastRejection
    ? `no candidate passed verification (${why}); last: ${tally.lastRejection}`
    : `no candidate passed verification (${why})`;
}

/** Adds what one call reported; a total stays null until some call reports that figure. */
function addUsage(total: UsageTotals, usage: CallUsage): UsageTotals {
  return addTotals(total, {
    inputTokens: usage.inputTokens ?? null,
    outputTokens: usage.outputTokens ?? null,
    costUsd: usage.costUsd ?? null,
  });
}

function addTotals(total: UsageTotals, more: UsageTotals): UsageTotals {
  const add = (sum: number | null, value: number | null) =>
    value === null || !Number.isFinite(value) ? sum : (sum ?? 0) + value;
  return {
    inputTokens: add(total.inputTokens, more.inputTokens),
    outputTokens: add(total.outputTokens, more.outputTokens),
    costUsd: add(total.costUsd, more.costUsd),
  };
}
