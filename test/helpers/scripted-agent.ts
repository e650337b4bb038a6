// A real Agent for tests of the repair loop: a descriptor over a small node script that answers
// with canned replies, run through the same descriptor, process runner, output parser and
// failure classification as the claude and opencode CLIs.
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createAgent } from '../../src/agent/create.js';
import type { Agent } from '../../src/agent/types.js';
import type { FatalReason, NoAnswerReason } from '../../src/formats/events.js';
import { scriptedDescriptor } from './scripted-agent/descriptor.mjs';

/** One call's reply: the answer text, or how the call fails. The last reply repeats. */
export type ScriptedReply =
  | string
  | { noAnswer: NoAnswerReason; exitCode?: number }
  | { fatal: FatalReason; exitCode?: number }
  | { hang: true }
  /** The reply of the first pair whose substring the prompt contains: each suggestion its own answer. */
  | { when: [string, ScriptedReply][] }
  /** `then`, after this reply's own delay instead of the descriptor's. */
  | { after: number; then: ScriptedReply };

export interface ScriptedCall {
  index: number;
  /** The prompt as the CLI received it (system prompt first on a fresh call). */
  prompt: string;
  /** The session the call forked from; null for a fresh call. */
  resumed: string | null;
  cwd: string;
  /** When the call began (ms since the epoch). */
  started: number;
  pid: number;
}

export interface ScriptedAgent extends Agent {
  /** Every call the script received so far, in order. */
  calls(): Promise<ScriptedCall[]>;
}

/**
 * Writes the scripted agent's descriptor and replies under `dir`: the descriptor file is what
 * `--backend <file>` takes, so a whole CLI run can use the same test double.
 */
export async function writeScriptedDescriptor(o: {
  dir: string;
  replies: ScriptedReply[];
  sessions?: boolean;
  /** Every call waits this long before it answers, like a model thinking. */
  delayMs?: number;
}): Promise<{ descriptorFile: string; stateFile: string }> {
  if (o.replies.length === 0) throw new Error('the scripted agent needs at least one reply');
  await mkdir(o.dir, { recursive: true });
  const repliesFile = join(o.dir, 'replies.json');
  const stateFile = join(o.dir, 'state');
  await writeFile(repliesFile, JSON.stringify(o.replies));
  const descriptor = scriptedDescriptor({ repliesFile, stateFile, sessions: o.sessions !== false, delayMs: o.delayMs });
  const descriptorFile = join(o.dir, 'scripted.json');
  await writeFile(descriptorFile, JSON.stringify(descriptor, null, 2));
  return { descriptorFile, stateFile };
}

/** Every call the scripted agent received so far, from its state file's log. */
export async function scriptedCalls(stateFile: string): Promise<ScriptedCall[]> {
  const log = `${stateFile}.log`;
  if (!existsSync(log)) return [];
  const text = await readFile(log, 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ScriptedCall);
}

export async function createScriptedAgent(o: {
  scratchDir: string;
  replies: ScriptedReply[];
  /** false: no session support, so follow-ups replay the conversation in one fresh call. */
  sessions?: boolean;
  systemPrompt?: string;
  agentTimeoutS?: number;
}): Promise<ScriptedAgent> {
  const { descriptorFile, stateFile } = await writeScriptedDescriptor({
    dir: join(o.scratchDir, 'scripted-agent'),
    replies: o.replies,
    sessions: o.sessions,
  });
  const { agent } = await createAgent({
    settings: {
      backend: descriptorFile,
      agentTimeoutS: o.agentTimeoutS ?? 30,
      prompts: 2,
      retries: 2,
      maxAttempts: 6,
      agentErrorRetries: 2,
    },
    scratchDir: join(o.scratchDir, 'conversations'),
    systemPrompt: o.systemPrompt ?? 'You repair OpenMP patches.',
  });
  if (!agent) throw new Error('createAgent returned no agent for the scripted descriptor');
  return Object.assign(agent, {
    calls: () => scriptedCalls(stateFile),
  });
}
