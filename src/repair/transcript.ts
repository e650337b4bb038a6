// One try of one suggestion as it is written under attempts/<id>/<n>/: what was asked, what came
// back, what verification made of it. Written for every try, accepted or not, answered or not.
import type { CallUsage } from '../agent/types.js';
import type { CheckName } from '../store/events.js';
import type { ClauseChange } from '../store/results.js';
import type { ApplyReport } from '../store/verdict.js';
import type { CheckResult } from './checks/result.js';

export interface AttemptTranscript {
  /** Suggestion id. */
  id: string;
  /** Number under attempts/<id>/, counting builtin and agent tries together from 1. */
  attempt: number;
  tier: 'builtin' | 'agent';
  /** Which --prompts conversation (1-based) and which turn in it (0 = first call); 0/0 for builtin. */
  conversation: number;
  turn: number;
  /** Ladder rung or `follow-up`, or the built-in repairer's rules. */
  source: string;
  prompt: string | null;
  /** The model's text; null when the call came back without an answer. */
  answer: string | null;
  /** answered, declined, or the no-answer / fatal reason of the call. */
  callOutcome: string;
  callDetail: string | null;
  /** file id → the patch text extracted from the answer. */
  extracted: Map<string, string> | null;
  /** file id → canonical patch of the candidate (whole set). */
  canonical: Map<string, string> | null;
  verdict: {
    accepted: boolean;
    /** The check that rejected the candidate; null when accepted or not answered. */
    rejectedBy: CheckName | null;
    reason: string | null;
    checks: CheckResult[];
  };
  /** How each hunk applied (or why not), once the dry run was reached. */
  applyReport?: ApplyReport | null;
  /** For a candidate that got past the directives check. */
  clauseChanges?: ClauseChange[];
  nonDirectiveLinesChanged?: boolean | null;
  /** Each candidate's verdict when the answer offered alternatives; empty when it held one. */
  candidates?: CandidateTranscript[];
  /** What the agent CLI reported for the call; absent for the built-in repairer. */
  usage?: CallUsage | null;
}

export interface CandidateTranscript {
  candidate: number;
  /** The answer's blocks it is made of, from 1. */
  blocks: number[];
  accepted: boolean;
  /** null when accepted, or left unbuilt because another candidate passed first. */
  rejectedBy: CheckName | null;
  reason: string | null;
  checks: CheckResult[];
}
