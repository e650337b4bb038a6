// The contract every agent backend fulfils (docs/architecture.md, `src/agent/`). The repair loop
// only ever sees these values; which CLI produced them is the descriptor's business.
import type { CallUsage, FatalReason, NoAnswerReason } from '../formats/events.js';

export interface Conversation {
  id: string;
  /** The empty directory every turn of this conversation runs in (the agent's cwd). */
  dir: string;
  /** The CLI's session id of the last answered turn; follow-ups fork from it. */
  sessionId?: string;
  turns: { prompt: string; answer: string }[];
}

export type CallResult =
  | { kind: 'answered'; text: string; conversation: Conversation; usage: CallUsage }
  | { kind: 'no-answer'; reason: NoAnswerReason; detail: string; usage: CallUsage }
  /** `started: false`: the CLI could not even be started (spawn failed), so no call was made. */
  | { kind: 'fatal'; reason: FatalReason; detail: string; usage: CallUsage; started?: false };

export interface Agent {
  readonly backend: string;
  readonly model: string | null;
  /** A fresh empty directory under the run's scratch folder. */
  open(): Promise<Conversation>;
  /**
   * One turn. A conversation with turns continues from its last answered turn; the conversation
   * passed in is never changed, so a failed call leaves nothing behind to clean up.
   */
  call(conversation: Conversation, prompt: string, signal?: AbortSignal): Promise<CallResult>;
  /** Deletes the conversation's directory. */
  close(conversation: Conversation): Promise<void>;
}
