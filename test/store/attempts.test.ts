// Every try leaves its transcript under attempts/<id>/<n>/, whatever became of it.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { AttemptRecord } from '../../src/formats/attempt.js';
import type { CallOutcome } from '../../src/formats/events.js';
import type { ClauseChange } from '../../src/formats/results.js';
import { AttemptStore, attemptsDir, readAttempts } from '../../src/store/index.js';
import { VerdictFileSchema } from '../../src/formats/verdict.js';
import { makeDotDir, patchText, removeDotDir } from './helpers.js';

let dotDir = '';
afterEach(async () => removeDotDir(dotDir));

const extracted = new Map([['1', patchText('1', '#pragma omp parallel for ')]]);

const rejected: AttemptRecord = {
  id: '3',
  attempt: 1,
  tier: 'agent',
  conversation: 1,
  turn: 0,
  source: 'rung-1',
  prompt: '# Repair this OpenMP patch\n',
  answer: '```diff\n--- a/main.c\n+++ b/main.c\n```\n',
  callOutcome: 'answered',
  callDetail: null,
  usage: { durationMs: 5120, inputTokens: 1800, outputTokens: 240, costUsd: 0.012, cliVersion: '2.0.1' },
  verification: {
    accepted: false,
    rejectedBy: 'dry-run-apply',
    runCheck: null,
    raceCheck: null,
    reason: 'hunk 1 of main.c does not apply: line 9 reads `int a[N], b[N];`',
    checks: [
      { check: 'extraction', passed: true, reason: null },
      { check: 'dry-run-apply', passed: false, reason: 'hunk 1 of main.c does not apply' },
    ],
    extracted,
    canonical: null,
    applyReport: {
      basis: null,
      files: [
        {
          file: '1',
          applied: false,
          hunks: [{ hunk: 1, applied: false, line: null, offset: null, fuzz: null, reason: 'context differs' }],
        },
      ],
    },
    directives: null,
    buildOutput: null,
    alternative: null,
    blocks: [1],
    reading: 'diff',
    alternatives: [],
  },
};

it("writes prompt, response, candidate and canonical patches under DiscoPoP's names, rejection.txt and a schema-valid verdict", async () => {
  dotDir = await makeDotDir();
  const store = new AttemptStore(dotDir);
  await store.write(rejected);
  const clauseChanges: ClauseChange[] = [
    { file: '1', directive: '#pragma omp parallel for', kind: 'clause-added', clause: 'reduction' },
  ];
  const accepted: AttemptRecord = {
    ...rejected,
    attempt: 2,
    turn: 1,
    source: 'follow-up',
    verification: {
      accepted: true,
      checks: [],
      extracted,
      canonical: new Map([['1', patchText('1', '#pragma omp parallel for reduction(+:sum) ')]]),
      applyReport: null,
      directives: { clauseChanges, nonDirectiveLinesChanged: false },
      basis: 'unpatched',
      changedFiles: ['1'],
      clauseChanges,
      nonDirectiveLinesChanged: false,
      build: { ok: true, output: '', diagnostics: [], durationMs: 0 },
      runCheck: null,
      buildOutput: null,
      raceCheck: null,
      alternative: null,
      blocks: [1],
      reading: 'diff',
      alternatives: [],
    },
  };
  await store.write(accepted);

  const dir = join(attemptsDir(dotDir), '3', '1');
  expect((await readdir(dir)).sort()).toEqual([
    'candidate',
    'prompt.txt',
    'rejection.txt',
    'response.txt',
    'verdict.json',
  ]);
  expect(await readdir(join(dir, 'candidate'))).toEqual(['1.patch']);
  // DiscoPoP's gate for our dry-run apply check, then the reason.
  expect(await readFile(join(dir, 'rejection.txt'), 'utf8')).toBe(
    'apply: hunk 1 of main.c does not apply: line 9 reads `int a[N], b[N];`',
  );
  expect((await readdir(join(attemptsDir(dotDir), '3', '2'))).sort()).toEqual([
    'candidate',
    'canonical',
    'prompt.txt',
    'response.txt',
    'verdict.json',
  ]);
  const verdict = VerdictFileSchema.parse(JSON.parse(await readFile(join(dir, 'verdict.json'), 'utf8')));
  expect(verdict).toMatchObject({
    tier: 'agent',
    prompt: 1,
    turn: 0,
    outcome: 'rejected',
    rejected_by: 'dry-run-apply',
    usage: { duration_ms: 5120, input_tokens: 1800, cost_usd: 0.012 },
  });
  expect(verdict.apply_report?.files[0]?.hunks[0]?.reason).toBe('context differs');

  const stored = await readAttempts(dotDir, '3');
  expect(stored.map((a) => [a.attempt, a.verdict?.outcome])).toEqual([
    [1, 'rejected'],
    [2, 'accepted'],
  ]);
  expect(stored[1]!.canonical.get('1')).toContain('reduction(+:sum)');
  expect(stored[1]!.verdict?.clause_changes).toHaveLength(1);
});

it('records an unanswered call with its reason and no answer file', async () => {
  dotDir = await makeDotDir();
  await new AttemptStore(dotDir).write({
    ...rejected,
    answer: null,
    callOutcome: 'timeout',
    callDetail: 'no output within 300 s',
    verification: null,
  });
  const [stored] = await readAttempts(dotDir, '3');
  expect(stored!.answer).toBeNull();
  expect(stored!.prompt).toBe('# Repair this OpenMP patch\n');
  expect(stored!.verdict).toMatchObject({
    outcome: 'unanswered',
    call_outcome: 'timeout',
    call_detail: 'no output within 300 s',
  });
});

it('rejects a call outcome the schema does not know instead of writing a bad verdict', async () => {
  dotDir = await makeDotDir();
  await expect(
    new AttemptStore(dotDir).write({ ...rejected, callOutcome: 'exploded' as CallOutcome }),
  ).rejects.toThrow();
});

it("writes compile_stderr.txt with the failed verification build's output, and rejection.txt names the compile gate", async () => {
  dotDir = await makeDotDir();
  const output = "main.c:11:40: error: 'sum' not specified in enclosing 'parallel'\n";
  await new AttemptStore(dotDir).write({
    ...rejected,
    verification: {
      ...rejected.verification!,
      accepted: false,
      rejectedBy: 'builds',
      reason: 'The project still does not build',
      buildOutput: output,
      canonical: extracted,
    } as AttemptRecord['verification'] & object,
  });
  const dir = join(attemptsDir(dotDir), '3', '1');
  expect(await readFile(join(dir, 'compile_stderr.txt'), 'utf8')).toBe(output);
  expect(await readFile(join(dir, 'rejection.txt'), 'utf8')).toBe('compile: The project still does not build');
});

it('an unanswered call is rejected at the agent gate', async () => {
  dotDir = await makeDotDir();
  await new AttemptStore(dotDir).write({
    ...rejected,
    answer: null,
    callOutcome: 'timeout',
    callDetail: 'no output within 300 s',
    verification: null,
  });
  expect(await readFile(join(attemptsDir(dotDir), '3', '1', 'rejection.txt'), 'utf8')).toBe(
    'agent: no output within 300 s',
  );
});

it("reads a folder written before format 2 (prompt.md, answer.txt, extracted/) and one DiscoPoP's tool wrote", async () => {
  dotDir = await makeDotDir();
  const old = join(attemptsDir(dotDir), '3', '1');
  const theirs = join(attemptsDir(dotDir), '3', '2');
  await mkdir(join(old, 'extracted'), { recursive: true });
  await writeFile(join(old, 'prompt.md'), 'old prompt');
  await writeFile(join(old, 'answer.txt'), 'old answer');
  await writeFile(join(old, 'extracted', '1.patch'), 'old patch');
  // DiscoPoP's own folder: no verdict.json or call.json.
  await mkdir(join(theirs, 'candidate'), { recursive: true });
  await writeFile(join(theirs, 'prompt.txt'), 'their prompt');
  await writeFile(join(theirs, 'response.txt'), 'their response');
  await writeFile(join(theirs, 'candidate', '1.patch'), 'their patch');
  await writeFile(join(theirs, 'rejection.txt'), 'compile: It still does not compile');
  const [first, second] = await readAttempts(dotDir, '3');
  expect(first).toMatchObject({
    prompt: 'old prompt',
    answer: 'old answer',
    names: { prompt: 'prompt.md', answer: 'answer.txt', candidate: 'extracted' },
  });
  expect(first!.extracted.get('1')).toBe('old patch');
  expect(second).toMatchObject({
    prompt: 'their prompt',
    answer: 'their response',
    verdict: null,
    names: { prompt: 'prompt.txt', answer: 'response.txt', candidate: 'candidate' },
  });
  expect(second!.extracted.get('1')).toBe('their patch');
});
