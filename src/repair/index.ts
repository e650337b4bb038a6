// The repair stage's public surface: the attempt loop, the six checks, the prompt ladder, the budget.
export { repairSuggestion } from './loop.js';
export { verify, type VerifyDeps } from './verify.js';
export { loadPromptLadder, BUILTIN_PROMPT_DIR, type PromptLadder } from './ladder.js';
export { RunBudget, ENDPOINT_DOWN_AFTER } from './budget.js';
export type { RepairDeps } from './deps.js';
