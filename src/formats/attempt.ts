// One attempt of one suggestion: what was asked, what came back, what verification made of it. The
// attempt loop builds one record where the attempt happens, for every attempt, accepted or not, answered
// or not; the store writes it under attempts/<id>/<n>/ (verdict.json is its on-disk summary).
import type { CallOutcome, CallUsage, CheckName, CheckResult } from './events.js';
import type { ClauseChange, RaceCheck, RunCheck } from './results.js';
import type { BuildResult, PatchSet } from './types.js';
import type { ApplyReport } from './verdict.js';

/** Clause changes and other changed lines, once the directives check ran. */
export interface DirectivesKept {
  clauseChanges: ClauseChange[];
  nonDirectiveLinesChanged: boolean;
}

interface VerificationProgress {
  checks: CheckResult[];
  /** file id → the answer's patch, rendered back as diff text. */
  extracted: Map<string, string> | null;
  /** file id → canonical patch of the candidate (whole set), once canonicalization passed. */
  canonical: PatchSet | null;
  /** How each hunk applied (or why not), once the dry run was reached. */
  applyReport: ApplyReport | null;
  directives: DirectivesKept | null;
  /** compile.sh's output (stdout and stderr) of its verification build, when that build failed. */
  buildOutput: string | null;
  /** Which alternative of an answer offering several, from 1; null when it holds one. */
  alternative: number | null;
  /** The answer's diff blocks this alternative is made of, from 1. */
  blocks: number[];
  /**
   * `diff`: the blocks read as diffs (a context line that differs from the file keeps the file's
   * line); `hunk-context`: the same blocks with those context lines written as the answer has them.
   */
  reading: 'diff' | 'hunk-context';
}

type Accepted = VerificationProgress & {
  accepted: true;
  extracted: Map<string, string>;
  canonical: PatchSet;
  basis: 'unpatched' | 'on-top';
  /** File ids whose patch differs from the generated one: what the write-back replaces. */
  changedFiles: string[];
  clauseChanges: ClauseChange[];
  nonDirectiveLinesChanged: boolean;
  build: BuildResult;
  /** Check 7's runs of the build; null without --check-run. */
  runCheck: RunCheck | null;
  /** The race build's run (--check-races); null without it. */
  raceCheck: RaceCheck | null;
};
type Rejected = VerificationProgress & {
  accepted: false;
  rejectedBy: CheckName;
  reason: string;
  /** Check 7's runs when they rejected it (`differs`, `crashed`, `timeout`); null when it never ran. */
  runCheck: RunCheck | null;
  /** The race check when it rejected it (`races`); null when it never ran. */
  raceCheck: RaceCheck | null;
};
/** An alternative left unbuilt because one before it passed every check. */
type Unsettled = VerificationProgress & { accepted: false; rejectedBy: null; reason: string };

/** What the six checks made of one alternative of an answer. */
export type AlternativeVerification = Accepted | Rejected | Unsettled;

/**
 * What the six checks made of one answer: its accepted alternative with the verified set, else the
 * alternative that got furthest, rejected by one check; and every alternative's own verification.
 */
export type Verification = (Accepted | Rejected) & { alternatives: AlternativeVerification[] };

/** Where one attempt stands in a suggestion's repair, and what was asked and answered. */
export interface AttemptPlace {
  /** Number under attempts/<id>/, counting builtin and agent attempts together from 1. */
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
}

export interface AttemptRecord extends AttemptPlace {
  /** Suggestion id. */
  id: string;
  /** answered, declined, or the no-answer / fatal reason of the call. */
  callOutcome: CallOutcome;
  callDetail: string | null;
  /** What the agent CLI reported for the call; null for the built-in repairer. */
  usage: CallUsage | null;
  /** What verification made of the answer; null when there was no answer to verify. */
  verification: Verification | null;
}
