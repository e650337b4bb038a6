// The prompt ladder: one template per rung, a follow-up turn and the system prompt, read from
// prompts/ or from --prompt-dir. Templates use plain {{placeholder}} substitution; every problem
// with a template directory is found here, before the first build, as one UsageError line.
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../errors.js';

/** Values a rung may use. */
export const RUNG_PLACEHOLDERS = [
  'suggestion_id',
  'pattern_type',
  'files',
  'generated_patches',
  'diagnostics',
  'source_context',
  'context_lines',
  'discopop_findings',
] as const;
export const FOLLOW_UP_PLACEHOLDERS = ['check', 'reason', 'suggestion_id', 'files'] as const;

/** Without these a prompt cannot be answered: the patches to correct and why they fail. */
const RUNG_REQUIRED = ['generated_patches', 'diagnostics'] as const;
const FOLLOW_UP_REQUIRED = ['reason'] as const;

export type RungValues = Record<(typeof RUNG_PLACEHOLDERS)[number], string>;
export type FollowUpValues = Record<(typeof FOLLOW_UP_PLACEHOLDERS)[number], string>;

export interface Template {
  /** File name, e.g. `rung-2.md`, used in transcripts and messages. */
  name: string;
  file: string;
  text: string;
  placeholders: Set<string>;
}

export interface PromptLadder {
  dir: string;
  system: string;
  /** rung-1.md, rung-2.md, … in order; a suggestion's conversations past the last reuse it. */
  rungs: Template[];
  followUp: Template;
}

export const BUILTIN_PROMPT_DIR = fileURLToPath(new URL('../../prompts/', import.meta.url));

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const RUNG_FILE = /^rung-(\d+)\.md$/;

/** Loads and checks a template directory (the built-in prompts/ when `dir` is undefined). */
export async function loadPromptLadder(dir?: string): Promise<PromptLadder> {
  const root = path.resolve(dir ?? BUILTIN_PROMPT_DIR);
  let names: string[];
  try {
    names = await readdir(root);
  } catch (error) {
    throw new UsageError(`${root}: cannot read the prompt directory (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  const rungNumbers = names
    .map((name) => RUNG_FILE.exec(name)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  if (rungNumbers.length === 0) throw new UsageError(`${path.join(root, 'rung-1.md')}: missing prompt template`);
  rungNumbers.forEach((n, index) => {
    if (n !== index + 1) throw new UsageError(`${path.join(root, `rung-${index + 1}.md`)}: missing prompt template (rungs must be numbered 1, 2, 3, … without gaps)`);
  });
  const rungs = await Promise.all(
    rungNumbers.map((n) => readTemplate(root, `rung-${n}.md`, RUNG_PLACEHOLDERS, RUNG_REQUIRED)),
  );
  const followUp = await readTemplate(root, 'follow-up.md', FOLLOW_UP_PLACEHOLDERS, FOLLOW_UP_REQUIRED);
  const system = await readTemplate(root, 'system.md', [], []);
  return { dir: root, system: system.text.trim(), rungs, followUp };
}

async function readTemplate(
  root: string,
  name: string,
  known: readonly string[],
  required: readonly string[],
): Promise<Template> {
  const file = path.join(root, name);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`${file}: ${code === 'ENOENT' ? 'missing prompt template' : `cannot read the template (${code ?? String(error)})`}`);
  }
  const placeholders = new Set<string>();
  for (const match of text.matchAll(PLACEHOLDER)) {
    const placeholder = match[1] ?? '';
    const line = text.slice(0, match.index).split('\n').length;
    if (!known.includes(placeholder)) {
      const allowed = known.length > 0 ? `; known: ${known.join(', ')}` : '; this template takes none';
      throw new UsageError(`${file}: line ${line}: unknown placeholder {{${placeholder}}}${allowed}`);
    }
    placeholders.add(placeholder);
  }
  const unclosed = /\{\{(?![^{}]*\}\})/.exec(text);
  if (unclosed) {
    const line = text.slice(0, unclosed.index).split('\n').length;
    throw new UsageError(`${file}: line ${line}: "{{" without a closing "}}"`);
  }
  const missing = required.filter((placeholder) => !placeholders.has(placeholder));
  if (missing.length > 0) {
    throw new UsageError(`${file}: missing required placeholder ${missing.map((p) => `{{${p}}}`).join(', ')}`);
  }
  return { name, file, text, placeholders };
}

/** Substitutes every placeholder in one pass, so a value that itself contains `{{x}}` stays as it is. */
export function renderTemplate(template: Template, values: Readonly<Record<string, string>>): string {
  return template.text.replace(PLACEHOLDER, (whole, name: string) => values[name] ?? whole);
}

/** The template of the n-th conversation (1-based); past the last rung the last one repeats. */
export function rungFor(ladder: PromptLadder, conversation: number): Template {
  return ladder.rungs[Math.min(conversation, ladder.rungs.length) - 1]!;
}
