// attempts/<id>/<n>/: the transcript of every try, in every mode. Files are written in the order
// the try produced them and verdict.json last, so a folder with a verdict is complete.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AttemptTranscript } from '../repair/transcript.js';
import type { ClauseChange } from './results.js';
import { isNotFound, writeFileAtomic } from './fs-atomic.js';
import { repairDir, safeName } from './paths.js';
import { type ApplyReport, type Verdict, VerdictSchema } from './verdict.js';
import { CallOutcomeSchema } from './events.js';

/** What the repair loop knows beyond the transcript when a try ends; each part only when it exists. */
export interface AttemptDetails {
  applyReport?: ApplyReport | null;
  clauseChanges?: ClauseChange[];
  nonDirectiveLinesChanged?: boolean | null;
  usage?: { durationMs: number; inputTokens?: number; outputTokens?: number; costUsd?: number; cliVersion?: string } | null;
}

export type AttemptInput = AttemptTranscript & AttemptDetails;

export interface StoredAttempt {
  attempt: number;
  prompt: string | null;
  answer: string | null;
  extracted: Map<string, string>;
  canonical: Map<string, string>;
  verdict: Verdict | null;
}

export function attemptsDir(dotDir: string): string {
  return join(repairDir(dotDir), 'attempts');
}

export class AttemptStore {
  constructor(private readonly dotDir: string) {}

  async write(t: AttemptInput): Promise<void> {
    const dir = join(attemptsDir(this.dotDir), safeName(t.id, 'suggestion id'), String(t.attempt));
    await mkdir(dir, { recursive: true });
    if (t.prompt !== null) await writeFile(join(dir, 'prompt.md'), t.prompt);
    if (t.answer !== null) await writeFile(join(dir, 'answer.txt'), t.answer);
    await writePatches(join(dir, 'extracted'), t.extracted);
    await writePatches(join(dir, 'canonical'), t.canonical);
    await writeFileAtomic(join(dir, 'verdict.json'), `${JSON.stringify(toVerdict(t), null, 2)}\n`);
  }
}

function toVerdict(t: AttemptInput): Verdict {
  const callOutcome = CallOutcomeSchema.parse(t.callOutcome);
  return VerdictSchema.parse({
    version: 1,
    id: t.id,
    attempt: t.attempt,
    tier: t.tier,
    prompt: t.conversation,
    turn: t.turn,
    source: t.source,
    call_outcome: callOutcome,
    call_detail: t.callDetail,
    outcome: outcomeOf(callOutcome, t.verdict.accepted),
    rejected_by: t.verdict.rejectedBy,
    reason: t.verdict.reason,
    checks: t.verdict.checks.map((c) => ({ check: c.check, passed: c.passed, reason: c.reason })),
    apply_report: t.applyReport ?? null,
    clause_changes: t.clauseChanges ?? [],
    non_directive_lines_changed: t.nonDirectiveLinesChanged ?? null,
    usage: t.usage
      ? {
          duration_ms: t.usage.durationMs,
          input_tokens: t.usage.inputTokens ?? null,
          output_tokens: t.usage.outputTokens ?? null,
          cost_usd: t.usage.costUsd ?? null,
          cli_version: t.usage.cliVersion ?? null,
        }
      : null,
    candidates: (t.candidates ?? []).map((c) => ({
      candidate: c.candidate,
      blocks: c.blocks,
      accepted: c.accepted,
      rejected_by: c.rejectedBy,
      reason: c.reason,
      checks: c.checks.map((check) => ({ check: check.check, passed: check.passed, reason: check.reason })),
    })),
  } satisfies Verdict);
}

function outcomeOf(call: Verdict['call_outcome'], accepted: boolean): Verdict['outcome'] {
  switch (call) {
    case 'answered':
      return accepted ? 'accepted' : 'rejected';
    case 'declined':
      return 'declined';
    case 'auth':
    case 'quota':
    case 'misconfigured':
      return 'fatal';
    default:
      return 'unanswered';
  }
}

async function writePatches(dir: string, patches: ReadonlyMap<string, string> | null): Promise<void> {
  if (!patches || patches.size === 0) return;
  await mkdir(dir, { recursive: true });
  for (const [fileId, text] of patches) await writeFile(join(dir, `${safeName(fileId, 'file id')}.patch`), text);
}

/** The tries of one suggestion, in order; for `show` and the HTML review page. */
export async function readAttempts(dotDir: string, id: string): Promise<StoredAttempt[]> {
  const base = join(attemptsDir(dotDir), safeName(id, 'suggestion id'));
  const numbers = (await listOrEmpty(base)).map(Number).filter((n) => Number.isInteger(n) && n > 0).sort((a, b) => a - b);
  const attempts: StoredAttempt[] = [];
  for (const attempt of numbers) {
    const dir = join(base, String(attempt));
    const verdictText = await readOrNull(join(dir, 'verdict.json'));
    const verdict = verdictText === null ? null : VerdictSchema.safeParse(JSON.parse(verdictText));
    if (verdict && !verdict.success) throw new Error(`${join(dir, 'verdict.json')}: not a verdict: ${verdict.error.message}`);
    attempts.push({
      attempt,
      prompt: await readOrNull(join(dir, 'prompt.md')),
      answer: await readOrNull(join(dir, 'answer.txt')),
      extracted: await readPatches(join(dir, 'extracted')),
      canonical: await readPatches(join(dir, 'canonical')),
      verdict: verdict ? verdict.data : null,
    });
  }
  return attempts;
}

async function readPatches(dir: string): Promise<Map<string, string>> {
  const patches = new Map<string, string>();
  for (const name of (await listOrEmpty(dir)).filter((n) => n.endsWith('.patch')).sort()) {
    patches.set(name.slice(0, -'.patch'.length), await readFile(join(dir, name), 'utf8'));
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

async function readOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}
