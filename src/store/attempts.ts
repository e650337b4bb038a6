// attempts/<id>/<n>/: the transcript of every try, in every mode. Files are written in the order
// the try produced them and verdict.json last, so a folder with a verdict is complete.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isFatalReason } from '../formats/events.js';
import type { AttemptRecord } from '../formats/attempt.js';
import { isNotFound, writeFileAtomic } from './fs-atomic.js';
import { repairDir, safeName } from './paths.js';
import { type VerdictFile, VerdictFileSchema } from '../formats/verdict.js';
import { decodeBytes, encodeText } from '../bytes.js';

export interface StoredAttempt {
  attempt: number;
  prompt: string | null;
  answer: string | null;
  extracted: Map<string, string>;
  canonical: Map<string, string>;
  verdict: VerdictFile | null;
}

export function attemptsDir(dotDir: string): string {
  return join(repairDir(dotDir), 'attempts');
}

export class AttemptStore {
  constructor(private readonly dotDir: string) {}

  async write(record: AttemptRecord): Promise<void> {
    const dir = join(attemptsDir(this.dotDir), safeName(record.id, 'suggestion id'), String(record.attempt));
    await mkdir(dir, { recursive: true });
    if (record.prompt !== null) await writeFile(join(dir, 'prompt.md'), record.prompt);
    if (record.answer !== null) await writeFile(join(dir, 'answer.txt'), record.answer);
    await writePatches(join(dir, 'extracted'), record.verification?.extracted ?? null);
    await writePatches(join(dir, 'canonical'), record.verification?.canonical ?? null);
    await writeFileAtomic(join(dir, 'verdict.json'), `${JSON.stringify(verdictFile(record), null, 2)}\n`);
  }
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
    // An answer offering alternatives: each candidate's own verdict; the fields above are the accepted or furthest one's.
    candidates:
      verification && verification.candidates.length > 1
        ? verification.candidates.map((c) => ({
            candidate: c.candidate!,
            blocks: c.blocks,
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
  for (const [fileId, text] of patches) await writeFile(join(dir, `${safeName(fileId, 'file id')}.patch`), encodeText(text));
}

/** The tries of one suggestion, in order; for `show` and the HTML review page. */
export async function readAttempts(dotDir: string, id: string): Promise<StoredAttempt[]> {
  const base = join(attemptsDir(dotDir), safeName(id, 'suggestion id'));
  const numbers = (await listOrEmpty(base)).map(Number).filter((n) => Number.isInteger(n) && n > 0).sort((a, b) => a - b);
  const attempts: StoredAttempt[] = [];
  for (const attempt of numbers) {
    const dir = join(base, String(attempt));
    const verdictText = await readOrNull(join(dir, 'verdict.json'));
    const verdict = verdictText === null ? null : VerdictFileSchema.safeParse(JSON.parse(verdictText));
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

async function readOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}
