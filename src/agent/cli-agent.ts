// An Agent over any CLI a descriptor describes: one process per call through runProcess (its
// own timeout and process-group kill), every turn in the conversation's empty directory,
// follow-ups forked from the last answered turn or, without session support, replayed.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { describeOutcome, runProcess, type RunOutcome } from '../process.js';
import { classifyFailure } from './classify.js';
import type { Descriptor } from './descriptor.js';
import { agentEnvironment } from './environment.js';
import { parseStructured, type ParsedOutput } from './output.js';
import { fillArgs, placeholdersIn, type Values } from './template.js';
import type { Agent, CallResult, CallUsage, Conversation } from './types.js';

export interface CliAgentOptions {
  descriptor: Descriptor;
  /** The executable to run instead of the descriptor's command[0] (llm_config.json `executable`). */
  executable?: string;
  model: string | null;
  timeoutMs: number;
  scratchDir: string;
  systemPrompt: string;
  /** Added to the CLI's environment last (tests point the CLIs at the loopback stub with it). */
  env?: Readonly<Record<string, string>>;
  /** SIGTERM → SIGKILL grace for a CLI that outlives its timeout. */
  graceMs?: number;
}

// Agent output is a patch plus some prose; anything near this is a runaway CLI.
const MAX_OUTPUT_BYTES = 8 * 1024 * 1024;
const VERSION_TIMEOUT_MS = 30_000;
const DETAIL_CHARS = 600;

export class CliAgent implements Agent {
  readonly backend: string;
  readonly model: string | null;
  readonly executable: string;
  private readonly d: Descriptor;
  private readonly usesSystemPrompt: boolean;
  private version: Promise<string | undefined> | undefined;

  constructor(private readonly o: CliAgentOptions) {
    this.d = o.descriptor;
    this.backend = o.descriptor.name;
    this.model = o.model;
    this.executable = o.executable ?? (o.descriptor.command[0] as string);
    const everywhere = JSON.stringify([o.descriptor.command, o.descriptor.firstCall, o.descriptor.followUp, o.descriptor.env]);
    this.usesSystemPrompt = placeholdersIn(everywhere).includes('system_prompt');
  }

  /** Fills every argument once with sample values, so a placeholder nothing can fill shows up before the first call. */
  checkArguments(): void {
    const values = this.values({ prompt: 'p', promptFile: 'f', sessionId: 's' });
    fillArgs([...this.d.command.slice(1), ...this.d.firstCall, ...(this.d.followUp ?? [])], values);
  }

  async open(): Promise<Conversation> {
    await mkdir(this.o.scratchDir, { recursive: true });
    const dir = await mkdtemp(join(this.o.scratchDir, 'conversation-'));
    return { id: basename(dir), dir, turns: [] };
  }

  async close(conversation: Conversation): Promise<void> {
    await rm(conversation.dir, { recursive: true, force: true });
    await rm(this.promptDir(conversation), { recursive: true, force: true });
  }

  async call(conversation: Conversation, prompt: string, signal?: AbortSignal): Promise<CallResult> {
    const cliVersion = await this.cliVersion();
    const resume = conversation.turns.length > 0 && this.d.followUp !== undefined && conversation.sessionId !== undefined;
    let text = conversation.turns.length > 0 && !resume ? replay(conversation.turns, prompt) : prompt;
    if (!this.usesSystemPrompt && !resume) text = `${this.o.systemPrompt}\n\n${text}`;

    const promptFile = this.d.prompt === 'file' ? await this.writePromptFile(conversation, text) : undefined;
    const values = this.values({ prompt: text, promptFile, sessionId: conversation.sessionId });
    const args = fillArgs([...this.d.command.slice(1), ...(resume ? this.d.followUp! : this.d.firstCall)], values);
    if (this.d.prompt === 'argument' && !this.mentions('prompt')) args.push(text);
    if (this.d.prompt === 'file' && !this.mentions('prompt_file')) args.push(promptFile!);

    const outcome = await runProcess({
      command: this.executable,
      args,
      cwd: conversation.dir,
      env: agentEnvironment({ descriptor: this.d, cwd: conversation.dir, values, extra: this.o.env }),
      extendEnv: false,
      input: this.d.prompt === 'stdin' ? text : undefined,
      timeoutMs: this.o.timeoutMs,
      graceMs: this.o.graceMs,
      maxOutputBytes: MAX_OUTPUT_BYTES,
      signal,
    });
    return this.interpret(outcome, conversation, prompt, cliVersion);
  }

  private interpret(outcome: RunOutcome, conversation: Conversation, prompt: string, cliVersion?: string): CallResult {
    const usage: CallUsage = { durationMs: outcome.durationMs, reachedModel: false };
    if (cliVersion !== undefined) usage.cliVersion = cliVersion;
    switch (outcome.kind) {
      case 'spawn-failed':
        return { kind: 'fatal', reason: 'misconfigured', detail: `${this.executable} ${describeOutcome(outcome)}`, usage };
      case 'canceled':
        return { kind: 'no-answer', reason: 'crashed', detail: 'canceled before the agent answered', usage };
      case 'timeout':
        return {
          kind: 'no-answer',
          reason: 'timeout',
          detail: `no answer within ${Math.round(this.o.timeoutMs / 1000)} s (agent timeout); the CLI was killed`,
          usage,
        };
      case 'signaled':
        return { kind: 'no-answer', reason: 'crashed', detail: `${this.backend} ${describeOutcome(outcome)}`, usage };
      case 'exited':
        break;
    }

    const parsed = this.parse(outcome.stdout, outcome.exitCode);
    if (parsed.inputTokens !== undefined) usage.inputTokens = parsed.inputTokens;
    if (parsed.outputTokens !== undefined) usage.outputTokens = parsed.outputTokens;
    if (parsed.costUsd !== undefined) usage.costUsd = parsed.costUsd;
    usage.reachedModel = (parsed.answered && outcome.exitCode === 0) || (parsed.outputTokens ?? 0) > 0;

    // An exit code alone never makes an answer: the parsed output must say so too (agents.md §3).
    if (outcome.exitCode === 0 && parsed.answered) {
      const turns = [...conversation.turns, { prompt, answer: parsed.text }];
      const next: Conversation = { id: conversation.id, dir: conversation.dir, turns };
      if (parsed.sessionId !== undefined) next.sessionId = parsed.sessionId;
      return { kind: 'answered', text: parsed.text, conversation: next, usage };
    }

    const fixed = this.d.exitCodes[String(outcome.exitCode)];
    const stderr = lastLines(outcome.stderr);
    const message =
      parsed.error?.message ??
      (outcome.exitCode === 0
        ? `exited 0 without a final result${outcome.truncated ? ' (output cut at the size limit)' : ''}`
        : stderr || `exited with code ${outcome.exitCode} and printed no error`);
    const failure = fixed
      ? classifyFailure({ descriptor: { signs: [{ pattern: '.', reason: fixed }] }, message })
      : classifyFailure({ descriptor: this.d, message, status: parsed.error?.status, stderr: outcome.stderr });
    const status = parsed.error?.status !== undefined ? ` (HTTP ${parsed.error.status})` : '';
    const detail = clip(`${message}${status}`);
    return failure.kind === 'fatal'
      ? { kind: 'fatal', reason: failure.reason, detail, usage }
      : { kind: 'no-answer', reason: failure.reason, detail, usage };
  }

  private parse(stdout: string, exitCode: number): ParsedOutput {
    if (this.d.output.format === 'text') return { parsed: true, answered: exitCode === 0, text: stdout };
    return parseStructured(stdout, this.d.output);
  }

  private values(o: { prompt: string; promptFile: string | undefined; sessionId: string | undefined }): Values {
    const model = this.model ?? undefined;
    return {
      model,
      provider: model?.includes('/') ? model.slice(0, model.indexOf('/')) : undefined,
      system_prompt: this.o.systemPrompt,
      agent_timeout_ms: this.o.timeoutMs,
      prompt: o.prompt,
      prompt_file: o.promptFile,
      session_id: o.sessionId,
    };
  }

  private mentions(placeholder: string): boolean {
    return placeholdersIn(JSON.stringify([this.d.command, this.d.firstCall, this.d.followUp])).includes(placeholder);
  }

  private promptDir(conversation: Conversation): string {
    return join(this.o.scratchDir, `${conversation.id}.prompts`);
  }

  // Outside the conversation directory, so the agent's cwd stays empty.
  private async writePromptFile(conversation: Conversation, text: string): Promise<string> {
    const dir = this.promptDir(conversation);
    await mkdir(dir, { recursive: true });
    const file = join(dir, `turn-${conversation.turns.length + 1}-${Date.now()}.txt`);
    await writeFile(file, text);
    return file;
  }

  private cliVersion(): Promise<string | undefined> {
    this.version ??= runProcess({
      command: this.executable,
      args: this.d.version,
      cwd: this.o.scratchDir,
      env: agentEnvironment({ descriptor: this.d, cwd: this.o.scratchDir, values: {}, extra: this.o.env }),
      extendEnv: false,
      timeoutMs: VERSION_TIMEOUT_MS,
    }).then((outcome) =>
      outcome.kind === 'exited' && outcome.exitCode === 0 ? outcome.stdout.trim().split('\n')[0] || undefined : undefined,
    );
    return this.version;
  }
}

/** A follow-up for a CLI without sessions: the whole exchange so far, then what is asked now. */
export function replay(turns: readonly { prompt: string; answer: string }[], prompt: string): string {
  const parts = ['This continues an earlier exchange with you. It is repeated here in full.'];
  turns.forEach((turn, i) => {
    parts.push(`=== Request ${i + 1} ===\n${turn.prompt}`, `=== Your answer ${i + 1} ===\n${turn.answer}`);
  });
  parts.push(`=== Request ${turns.length + 1} (answer this one) ===\n${prompt}`);
  return parts.join('\n\n');
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-5).join(' | ');
}

function clip(text: string): string {
  return text.length > DETAIL_CHARS ? `${text.slice(0, DETAIL_CHARS)}…` : text;
}
