// An Agent over any CLI a descriptor describes: one process per call through runProcess (its
// own timeout and process-group kill), every turn in the conversation's empty directory,
// follow-ups forked from the last answered turn or, without session support, replayed.
import { access, mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { runProcess, type RunOutcome } from '../process.js';
import type { Descriptor } from '../formats/descriptor.js';
import { agentEnvironment } from './environment.js';
import { callResultOf } from './result.js';
import { fillArgs, placeholdersIn, type Values } from './template.js';
import type { Agent, CallResult, Conversation } from './types.js';

export interface CliAgentOptions {
  descriptor: Descriptor;
  /** The executable to run instead of the descriptor's command[0] (llm_config.json `executable`). */
  executable?: string;
  model: string | null;
  timeoutMs: number;
  scratchDir: string;
  systemPrompt: string;
  /** Added after the descriptor's arguments: backend options, then llm_config.json's extra_args. */
  extraArgs?: readonly string[];
  /** llm_config.json's `env`: the CLI's environment, nowhere else. */
  configuredEnv?: Readonly<Record<string, string>>;
  /** Added to the CLI's environment last (tests point the CLIs at the loopback stub with it). */
  env?: Readonly<Record<string, string>>;
  /** SIGTERM → SIGKILL grace for a CLI that outlives its timeout. */
  graceMs?: number;
  /** Sees every CLI run as it came back (debug logs; tests record fixtures with it). */
  onRun?: (run: { args: string[]; outcome: RunOutcome }) => void;
}

// Agent output is a patch plus some prose; anything near this is a runaway CLI.
const MAX_OUTPUT_BYTES = 8 * 1024 * 1024;
const VERSION_TIMEOUT_MS = 15_000;

export class CliAgent implements Agent {
  readonly backend: string;
  readonly model: string | null;
  readonly executable: string;
  private readonly d: Descriptor;
  private readonly usesSystemPrompt: boolean;
  private version: Promise<string | undefined> | undefined;
  private prepared: Promise<void> | undefined;

  constructor(private readonly o: CliAgentOptions) {
    this.d = o.descriptor;
    this.backend = o.descriptor.name;
    this.model = o.model;
    this.executable = o.executable ?? (o.descriptor.command[0] as string);
    const everywhere = JSON.stringify([
      o.descriptor.command,
      o.descriptor.firstCall,
      o.descriptor.followUp,
      o.descriptor.env,
    ]);
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
    await this.prepare();
    const resume =
      conversation.turns.length > 0 && this.d.followUp !== undefined && conversation.sessionId !== undefined;
    let text = conversation.turns.length > 0 && !resume ? replay(conversation.turns, prompt) : prompt;
    if (!this.usesSystemPrompt && !resume) text = `${this.o.systemPrompt}\n\n${text}`;

    const promptFile = this.d.prompt === 'file' ? await this.writePromptFile(conversation, text) : undefined;
    const values = this.values({ prompt: text, promptFile, sessionId: conversation.sessionId });
    const args = [
      ...fillArgs([...this.d.command.slice(1), ...(resume ? this.d.followUp! : this.d.firstCall)], values),
      ...(this.o.extraArgs ?? []),
    ];
    if (this.d.prompt === 'argument' && !this.mentions('prompt')) args.push(text);
    if (this.d.prompt === 'file' && !this.mentions('prompt_file')) args.push(promptFile!);

    const outcome = await runProcess({
      command: this.executable,
      args,
      cwd: conversation.dir,
      env: agentEnvironment({
        descriptor: this.d,
        cwd: conversation.dir,
        values,
        configured: this.o.configuredEnv,
        extra: this.o.env,
      }),
      extendEnv: false,
      input: this.d.prompt === 'stdin' ? text : undefined,
      timeoutMs: this.o.timeoutMs,
      graceMs: this.o.graceMs,
      maxOutputBytes: MAX_OUTPUT_BYTES,
      signal,
    });
    this.o.onRun?.({ args, outcome });
    return callResultOf({
      descriptor: this.d,
      outcome,
      conversation,
      prompt,
      timeoutMs: this.o.timeoutMs,
      executable: this.executable,
      cliVersion,
    });
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

  /**
   * The descriptor's `prepare` step, once per agent, awaited by every call: the calls of a run
   * with --agent-jobs above 1 start together, and their first starts would race for the state it
   * creates. A failing step is not an error here: the calls then show what is wrong.
   */
  private prepare(): Promise<void> {
    const step = this.d.prepare;
    if (step === undefined) return Promise.resolve();
    this.prepared ??= (async () => {
      const env = agentEnvironment({
        descriptor: this.d,
        cwd: this.o.scratchDir,
        values: {},
        configured: this.o.configuredEnv,
        extra: this.o.env,
      });
      if (step.unlessDataFile !== undefined && (await exists(join(dataHome(env), step.unlessDataFile)))) return;
      await runProcess({
        command: this.executable,
        args: step.args,
        cwd: this.o.scratchDir,
        env,
        extendEnv: false,
        timeoutMs: this.o.timeoutMs,
      });
    })();
    return this.prepared;
  }

  private cliVersion(): Promise<string | undefined> {
    const args = this.d.version;
    if (args === undefined) return Promise.resolve(undefined);
    this.version ??= runProcess({
      command: this.executable,
      args,
      cwd: this.o.scratchDir,
      env: agentEnvironment({
        descriptor: this.d,
        cwd: this.o.scratchDir,
        values: {},
        configured: this.o.configuredEnv,
        extra: this.o.env,
      }),
      extendEnv: false,
      timeoutMs: VERSION_TIMEOUT_MS,
    }).then((outcome) =>
      outcome.kind === 'exited' && outcome.exitCode === 0
        ? outcome.stdout.trim().split('\n')[0] || undefined
        : undefined,
    );
    return this.version;
  }
}

/** The XDG data directory the CLI sees, as XDG-following CLIs (opencode) resolve it. */
function dataHome(env: Readonly<Record<string, string>>): string {
  return env.XDG_DATA_HOME || join(env.HOME ?? '', '.local', 'share');
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
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
