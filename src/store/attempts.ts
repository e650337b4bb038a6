// attempts/<id>/<n>/: the transcript of every attempt, in every mode. Files are written in the order
// the attempt produced them and verdict.json last, so a folder with a verdict is complete; an answer
// is recorded (call.json) as soon as it arrives, before verification. The files carry DiscoPoP's
// names (prompt.txt, response.txt, candidate/, canonical/, rejection.txt, compile_stderr.txt), so
// its users find them where its manual says; the names before format 2 (prompt.md, answer.txt,
// extracted/) are still read.
import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isFatalReason } from '../formats/events.js';
import type { AttemptRecord, AttemptPlace } from '../formats/attempt.js';
import type { PriorAttempt, UsageTotals } from '../formats/outcome.js';
import { AnsweredCallSchema, type AnsweredCall } from '../formats/resume-state.js';
import { exists, isNotFound, readTextIfPresent, writeFileAtomic } from './fs-atomic.js';
import { discopopOutcome } from '../formats/discopop-progress.js';
import { repairDir, safeName } from './paths.js';
import { type VerdictFile, VerdictFileSchema } from '../formats/verdict.js';
import { decodeBytes, encodeText } from '../bytes.js';

export interface StoredAttempt {
  attempt: number;
  /** Present once the answer came back, before its verdict. */
  call: AnsweredCall | null;
  prompt: string | null;
  answer: string | null;
  extracted: Map<string, string>;
  canonical: Map<string, string>;
  verdict: VerdictFile | null;
  /** rejection.txt, `<gate>: <detail>` in DiscoPoP's words; null for an accepted attempt or an older folder. */
  rejection: string | null;
  /** The names the files were found under: DiscoPoP's (prompt.txt, response.txt, candidate/) or those before format 2. */
  names: { prompt: string; answer: string; candidate: string };
}

export function attemptsDir(dotDir: string): string {
  return join(repairDir(dotDir), 'attempts');
}

export class AttemptStore {
  constructor(private readonly dotDir: string) {}

  /** Records an answer before it is verified: prompt.txt, response.txt and call.json. */
  async writeAnswer(t: AttemptPlace & { id: string; answer: string; usage: UsageTotals }): Promise<void> {
    const dir = join(attemptsDir(this.dotDir), safeName(t.id, 'suggestion id'), String(t.attempt));
    await mkdir(dir, { recursive: true });
    if (t.prompt !== null) await writeFile(join(dir, PROMPT), t.prompt);
    await writeFile(join(dir, RESPONSE), t.answer);
    const call: AnsweredCall = {
      version: 1,
      id: t.id,
      attempt: t.attempt,
      tier: t.tier,
      prompt: t.conversation,
      turn: t.turn,
      source: t.source,
      cost_usd: t.usage.costUsd,
      input_tokens: t.usage.inputTokens,
      output_tokens: t.usage.outputTokens,
    };
    await writeFileAtomic(join(dir, 'call.json'), `${JSON.stringify(AnsweredCallSchema.parse(call), null, 2)}\n`);
  }

  async write(record: AttemptRecord): Promise<void> {
    const dir = join(attemptsDir(this.dotDir), safeName(record.id, 'suggestion id'), String(record.attempt));
    await mkdir(dir, { recursive: true });
    if (record.prompt !== null) await writeFile(join(dir, PROMPT), record.prompt);
    if (record.answer !== null) await writeFile(join(dir, RESPONSE), record.answer);
    const verification = record.verification;
    await writePatches(join(dir, CANDIDATE), verification?.extracted ?? null);
    await writePatches(join(dir, 'canonical'), verification?.canonical ?? null);
    if (verification && !verification.accepted && verification.buildOutput !== null)
      await writeFile(join(dir, 'compile_stderr.txt'), verification.buildOutput);
    const rejection = rejectionOf(record);
    if (rejection !== null) await writeFile(join(dir, 'rejection.txt'), rejection);
    await writeFileAtomic(join(dir, 'verdict.json'), `${JSON.stringify(verdictFile(record), null, 2)}\n`);
  }
}

/** DiscoPoP's file names; the second of each pair is the name before results format 2. */
const PROMPT = 'prompt.txt';
const RESPONSE = 'response.txt';
const CANDIDATE = 'candidate';
const OLD_PROMPT = 'prompt.md';
const OLD_RESPONSE = 'answer.txt';
const OLD_CANDIDATE = 'extracted';

/** rejection.txt as DiscoPoP writes it, `<gate>: <detail>`; null for an accepted attempt. */
function rejectionOf(record: AttemptRecord): string | null {
  const verification = record.verification;
  if (verification?.accepted) return null;
  if (verification)
    return `${discopopOutcome({ accepted: false, rejectedBy: verification.rejectedBy })}: ${verification.reason}`;
  return `agent: ${record.callDetail ?? record.callOutcome}`;
}

function verdictFile(record: AttemptRecord): VerdictFile {
  const verification = record.verification;
  const rejected = verification && !verification.accepted ? verification : null;
  return VerdictFileSchema.parse({
    version: 1,
    id: record.id,
    attempt: record.attempt,
    tier: record.tier,
    prompt: record.conversation,
    turn: record.turn,
    source: record.source,
    call_outcome: record.callOutcome,
    call_detail: record.callDetail,
    outcome: outcomeOf(record.callOutcome, verification?.accepted ?? false),
    rejected_by: rejected?.rejectedBy ?? null,
    reason: rejected?.reason ?? null,
    run_check: verification?.runCheck ?? null,
    race_check: verification?.raceCheck ?? null,
    checks: (verification?.checks ?? []).map((c) => ({ check: c.check, passed: c.passed, reason: c.reason })),
    apply_report: verification?.applyReport ?? null,
    clause_changes: verification?.directives?.clauseChanges ?? [],
    non_directive_lines_changed: verification?.directives?.nonDirectiveLinesChanged ?? null,
    usage: record.usage
      ? {
          duration_ms: record.usage.durationMs,
          input_tokens: record.usage.inputTokens ?? null,
          output_tokens: record.usage.outputTokens ?? null,
          cost_usd: record.usage.costUsd ?? null,
          cli_version: record.usage.cliVersion ?? null,
        }
      : null,
    // An answer offering alternatives: each one's own verdict (on disk `candidates`); the fields above are the accepted or furthest one's.
    candidates:
      verification && verification.alternatives.length > 1
        ? verification.alternatives.map((c) => ({
            candidate: c.alternative!,
            blocks: c.blocks,
            reading: c.reading,
            accepted: c.accepted,
            rejected_by: c.accepted ? null : c.rejectedBy,
            reason: c.accepted ? null : c.reason,
            checks: c.checks.map((check) => ({ check: check.check, passed: check.passed, reason: check.reason })),
          }))
        : [],
  } satisfies VerdictFile);
}

function outcomeOf(call: VerdictFile['call_outcome'], accepted: boolean): VerdictFile['outcome'] {
  if (call === 'answered') return accepted ? 'accepted' : 'rejected';
  if (call === 'declined') return 'declined';
  return isFatalReason(call) ? 'fatal' : 'unanswered';
}

async function writePatches(dir: string, patches: ReadonlyMap<string, string> | null): Promise<void> {
  if (!patches || patches.size === 0) return;
  await mkdir(dir, { recursive: true });
  for (const [fileId, text] of patches)
    await writeFile(join(dir, `${safeName(fileId, 'file id')}.patch`), encodeText(text));
}

/** Carries attempts of an earlier run (history/<run>/attempts/<id>/<n>/) over into this run's attempts/<id>/. */
export async function copyAttempts(
  fromDir: string,
  dotDir: string,
  id: string,
  numbers: readonly number[],
): Promise<void> {
  const to = join(attemptsDir(dotDir), safeName(id, 'suggestion id'));
  for (const n of numbers) await cp(join(fromDir, String(n)), join(to, String(n)), { recursive: true });
}

/**
 * The attempts a continued suggestion already made in an earlier run, carried over into this run's
 * attempts/<id>/. Numbers stay contiguous: a folder the kill left before any answer arrived, and
 * whatever follows it, is not carried over.
 */
export async function carryOverAttempts(fromDir: string, dotDir: string, id: string): Promise<PriorAttempt[]> {
  const attempts: PriorAttempt[] = [];
  for (const stored of await readAttemptsIn(fromDir)) {
    const prior = priorAttempt(stored);
    if (!prior || prior.attempt !== attempts.length + 1) break;
    attempts.push(prior);
  }
  await copyAttempts(
    fromDir,
    dotDir,
    id,
    attempts.map((t) => t.attempt),
  );
  return attempts;
}

/** A stored attempt as the attempt loop continues from it: the on-disk names mapped to the loop's words. */
function priorAttempt(stored: StoredAttempt): PriorAttempt | null {
  const { verdict, call } = stored;
  if (verdict) {
    const outcome = verdict.outcome;
    return {
      attempt: stored.attempt,
      tier: verdict.tier,
      conversation: verdict.prompt,
      turn: verdict.turn,
      source: verdict.source,
      prompt: stored.prompt,
      answer: stored.answer,
      outcome,
      rejectedBy: verdict.rejected_by,
      reason: outcome === 'declined' ? verdict.call_detail : verdict.reason,
      runCheck: verdict.run_check,
      raceCheck: verdict.race_check,
      usage: {
        inputTokens: verdict.usage?.input_tokens ?? null,
        outputTokens: verdict.usage?.output_tokens ?? null,
        costUsd: verdict.usage?.cost_usd ?? null,
      },
    };
  }
  // An answer that arrived but whose check never finished: checked again, not asked again.
  if (call && stored.answer !== null) {
    return {
      attempt: stored.attempt,
      tier: call.tier,
      conversation: call.prompt,
      turn: call.turn,
      source: call.source,
      prompt: stored.prompt,
      answer: stored.answer,
      outcome: 'pending',
      rejectedBy: null,
      reason: null,
      runCheck: null,
      raceCheck: null,
      usage: { inputTokens: call.input_tokens, outputTokens: call.output_tokens, costUsd: call.cost_usd },
    };
  }
  // A folder the kill left before the answer arrived: that call never happened for the record.
  return null;
}

/** The attempts of one suggestion, in order; for `show` and the HTML review page. */
export async function readAttempts(dotDir: string, id: string): Promise<StoredAttempt[]> {
  return readAttemptsIn(join(attemptsDir(dotDir), safeName(id, 'suggestion id')));
}

/** The attempts under one suggestion's folder `base` (attempts/<id>/, here or in history/). */
export async function readAttemptsIn(base: string): Promise<StoredAttempt[]> {
  const numbers = (await listOrEmpty(base))
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0)
    .sort((a, b) => a - b);
  const attempts: StoredAttempt[] = [];
  for (const attempt of numbers) {
    const dir = join(base, String(attempt));
    const verdictText = await readTextIfPresent(join(dir, 'verdict.json'));
    const verdict = verdictText === null ? null : VerdictFileSchema.safeParse(JSON.parse(verdictText));
    if (verdict && !verdict.success)
      throw new Error(`${join(dir, 'verdict.json')}: not a verdict: ${verdict.error.message}`);
    const callText = await readTextIfPresent(join(dir, 'call.json'));
    const call = callText === null ? null : AnsweredCallSchema.safeParse(JSON.parse(callText));
    const names = {
      prompt: (await exists(join(dir, OLD_PROMPT))) && !(await exists(join(dir, PROMPT))) ? OLD_PROMPT : PROMPT,
      answer: (await exists(join(dir, OLD_RESPONSE))) && !(await exists(join(dir, RESPONSE))) ? OLD_RESPONSE : RESPONSE,
      candidate:
        (await exists(join(dir, OLD_CANDIDATE))) && !(await exists(join(dir, CANDIDATE))) ? OLD_CANDIDATE : CANDIDATE,
    };
    attempts.push({
      attempt,
      call: call?.success ? call.data : null,
      prompt: await readTextIfPresent(join(dir, names.prompt)),
      answer: await readTextIfPresent(join(dir, names.answer)),
      extracted: await readPatches(join(dir, names.candidate)),
      rejection: await readTextIfPresent(join(dir, 'rejection.txt')),
      names,
      canonical: await readPatches(join(dir, 'canonical')),
      verdict: verdict ? verdict.data : null,
    });
  }
  return attempts;
}

async function readPatches(dir: string): Promise<Map<string, string>> {
  const patches = new Map<string, string>();
  for (const name of (await listOrEmpty(dir)).filter((n) => n.endsWith('.patch')).sort()) {
    patches.set(name.slice(0, -'.patch'.length), decodeBytes(await readFile(join(dir, name))));
  }
  return patches;
}

async function listOrEmpty(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
}
