// The prompt ladder: one template per rung, a follow-up turn and the system prompt, read from
// prompts/ or from --prompt-dir. patch-repair's own templates use {{placeholder}} substitution and
// every problem with them is found here, before the first build, as one UsageError line.
// --prompt-dir also takes DiscoPoP's template set as it is (minimal.md → context.md → guided.md,
// retry.md; single-brace placeholders, filled as DiscoPoP's prompts.py fills them): a file the set
// lacks comes from the user's installed DiscoPoP, else is patch-repair's own rung of that place, and
// the ladder cycles as DiscoPoP's.
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../errors.js';
import { DISCOPOP_TEMPLATES_VARIABLE, locateDiscopopTemplates } from './discopop-templates.js';

/** Values a rung may use. */
const RUNG_PLACEHOLDERS = [
  'suggestion_id',
  'pattern_type',
  'files',
  'generated_patches',
  'diagnostics',
  'source_context',
  'context_lines',
  'discopop_findings',
] as const;
const FOLLOW_UP_PLACEHOLDERS = ['check', 'reason', 'suggestion_id', 'files'] as const;
/** DiscoPoP's placeholders (its prompts.py); `failure` and `output_contract` are all its retry turn gets. */
const DISCOPOP_RUNG_PLACEHOLDERS = [
  'identity',
  'patch_blocks',
  'original_source',
  'patched_source',
  'pattern_metadata',
  'diagnostics',
  'output_contract',
] as const;
const DISCOPOP_FOLLOW_UP_PLACEHOLDERS = ['failure', 'output_contract'] as const;
/** DiscoPoP's file names, in ladder order, and its follow-up. */
const DISCOPOP_RUNGS = ['minimal.md', 'context.md', 'guided.md'] as const;
const DISCOPOP_FOLLOW_UP = 'retry.md';
/** patch-repair's own template for each place of DiscoPoP's ladder, when no DiscoPoP is installed. */
const OWN_TEMPLATE_FOR: Record<string, string> = {
  'minimal.md': 'rung-1.md',
  'context.md': 'rung-2.md',
  'guided.md': 'rung-3.md',
  'retry.md': 'follow-up.md',
};

/** Without these a prompt cannot be answered: the patches to correct and why they fail. */
const RUNG_REQUIRED = ['generated_patches', 'diagnostics'] as const;
const FOLLOW_UP_REQUIRED = ['reason'] as const;

export type RungValues = Record<
  (typeof RUNG_PLACEHOLDERS)[number] | (typeof DISCOPOP_RUNG_PLACEHOLDERS)[number],
  string
>;
export type FollowUpValues = Record<
  (typeof FOLLOW_UP_PLACEHOLDERS)[number] | (typeof DISCOPOP_FOLLOW_UP_PLACEHOLDERS)[number],
  string
>;

export interface Template {
  /** File name, e.g. `rung-2.md`, used in transcripts and messages. */
  name: string;
  file: string;
  text: string;
  placeholders: Set<string>;
  /** `{{name}}` (patch-repair's own) or `{name}` (DiscoPoP's). */
  braces: 'double' | 'single';
}

export interface PromptLadder {
  dir: string;
  system: string;
  /** rung-1.md, rung-2.md, … in order; a suggestion's conversations past the last reuse it. */
  rungs: Template[];
  followUp: Template;
  /** Past the last rung, start again at the first (DiscoPoP's ladder) instead of repeating the last. */
  cycle: boolean;
  /** One line per template whose unknown `{word}`s are left as written, for the run's output. */
  warnings: string[];
}

export const BUILTIN_PROMPT_DIR = fileURLToPath(new URL('../../prompts/', import.meta.url));

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const SINGLE_PLACEHOLDER = /\{([A-Za-z_]\w*)\}/g;
const RUNG_FILE = /^rung-(\d+)\.md$/;

/**
 * Loads and checks a template directory (the built-in prompts/ when `dir` is undefined). `env` is
 * where a DiscoPoP set's missing files are looked for (python3's PATH and PYTHONPATH, the override).
 */
export async function loadPromptLadder(dir?: string, env: NodeJS.ProcessEnv = process.env): Promise<PromptLadder> {
  const root = path.resolve(dir ?? BUILTIN_PROMPT_DIR);
  let names: string[];
  try {
    names = await readdir(root);
  } catch (error) {
    throw new UsageError(
      `${root}: cannot read the prompt directory (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  const rungNumbers = names
    .map((name) => RUNG_FILE.exec(name)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  const discopop = [...DISCOPOP_RUNGS, DISCOPOP_FOLLOW_UP].filter((name) => names.includes(name));
  if (rungNumbers.length === 0 && discopop.length > 0) return loadDiscopopSet(root, names, env);
  if (rungNumbers.length === 0) throw new UsageError(`${path.join(root, 'rung-1.md')}: missing prompt template`);
  rungNumbers.forEach((n, index) => {
    if (n !== index + 1)
      throw new UsageError(
        `${path.join(root, `rung-${index + 1}.md`)}: missing prompt template (rungs must be numbered 1, 2, 3, … without gaps)`,
      );
  });
  const rungs = await Promise.all(
    rungNumbers.map((n) => readTemplate(root, `rung-${n}.md`, RUNG_PLACEHOLDERS, RUNG_REQUIRED)),
  );
  const followUp = await readTemplate(root, 'follow-up.md', FOLLOW_UP_PLACEHOLDERS, FOLLOW_UP_REQUIRED);
  const system = await readTemplate(root, 'system.md', [], []);
  return { dir: root, system: system.text.trim(), rungs, followUp, cycle: false, warnings: [] };
}

/**
 * DiscoPoP's set, read as DiscoPoP reads it: no placeholder is required and an unknown `{word}`
 * stays in the text (templates quote C code), named once per file. A file the set lacks is, as in
 * DiscoPoP's tool, DiscoPoP's built-in template of that name, read from the user's installation;
 * without one it is patch-repair's own template of that place. One warning says which was used.
 * The system prompt is always patch-repair's.
 */
async function loadDiscopopSet(root: string, names: readonly string[], env: NodeJS.ProcessEnv): Promise<PromptLadder> {
  const builtin = await loadPromptLadder();
  const warnings: string[] = [];
  const missing = [...DISCOPOP_RUNGS, DISCOPOP_FOLLOW_UP].filter((name) => !names.includes(name));
  const installed = missing.length > 0 ? await locateDiscopopTemplates(env) : null;
  const fromInstalled = new Set<string>();
  const fromOwn = new Set<string>();
  for (const name of missing) {
    const hasIt = installed !== null && (await readdir(installed.dir).catch((): string[] => [])).includes(name);
    (hasIt ? fromInstalled : fromOwn).add(name);
  }
  const read = async (name: string, known: readonly string[]): Promise<Template> => {
    if (fromOwn.has(name)) {
      const own = OWN_TEMPLATE_FOR[name]!;
      return name === DISCOPOP_FOLLOW_UP ? builtin.followUp : builtin.rungs.find((rung) => rung.name === own)!;
    }
    const file = path.join(fromInstalled.has(name) ? installed!.dir : root, name);
    const text = stripLeadingComment(await readText(file));
    const placeholders = new Set<string>();
    const unknown = new Set<string>();
    for (const match of text.matchAll(SINGLE_PLACEHOLDER))
      (known.includes(match[1]!) ? placeholders : unknown).add(match[1]!);
    if (unknown.size > 0)
      warnings.push(
        `${file}: ${[...unknown].map((word) => `{${word}}`).join(', ')} left as written: not a placeholder of DiscoPoP's templates`,
      );
    return { name, file, text, placeholders, braces: 'single' };
  };
  const rungs = await Promise.all(DISCOPOP_RUNGS.map((name) => read(name, DISCOPOP_RUNG_PLACEHOLDERS)));
  const followUp = await read(DISCOPOP_FOLLOW_UP, DISCOPOP_FOLLOW_UP_PLACEHOLDERS);
  if (missing.length > 0) warnings.unshift(missingFilesWarning(root, installed, fromInstalled, fromOwn));
  return { dir: root, system: builtin.system, rungs, followUp, cycle: true, warnings };
}

function missingFilesWarning(
  root: string,
  installed: { dir: string; foundBy: string } | null,
  fromInstalled: ReadonlySet<string>,
  fromOwn: ReadonlySet<string>,
): string {
  const used: string[] = [];
  if (fromInstalled.size > 0)
    used.push(
      `${[...fromInstalled].join(', ')} from the installed DiscoPoP, ${installed!.dir} (found by ${installed!.foundBy})`,
    );
  if (fromOwn.size > 0) {
    const why =
      installed === null
        ? `no installed DiscoPoP found: python3 finds no discopop_library with a PatchRepair/prompts/ folder, and $${DISCOPOP_TEMPLATES_VARIABLE} is unset`
        : `${installed.dir} lacks ${fromOwn.size === 1 ? 'it' : 'them'}`;
    used.push(
      `patch-repair's own ${[...fromOwn].map((name) => OWN_TEMPLATE_FOR[name]!).join(', ')} for ${[...fromOwn].join(', ')} (${why})`,
    );
  }
  return `${root}: DiscoPoP template set without ${[...fromInstalled, ...fromOwn].join(', ')}; using ${used.join('; ')}`;
}

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      `${file}: ${code === 'ENOENT' ? 'missing prompt template' : `cannot read the template (${code ?? String(error)})`}`,
    );
  }
}

/**
 * A template's leading HTML comment (DiscoPoP's templates carry their licence header in one) is
 * for its readers, not for the model; a comment further down is part of what the author wrote.
 */
function stripLeadingComment(text: string): string {
  const start = text.search(/\S/);
  if (start < 0 || !text.startsWith('<!--', start)) return text;
  const end = text.indexOf('-->', start);
  return end < 0 ? text : text.slice(end + 3).replace(/^\s*\n/, '');
}

async function readTemplate(
  root: string,
  name: string,
  known: readonly string[],
  required: readonly string[],
): Promise<Template> {
  const file = path.join(root, name);
  const text = stripLeadingComment(await readText(file));
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
  return { name, file, text, placeholders, braces: 'double' };
}

/**
 * Substitutes every placeholder in one pass, so a value that itself contains a placeholder stays
 * as it is; a name without a value stays as written.
 */
export function renderTemplate(template: Template, values: Readonly<Record<string, string>>): string {
  const pattern = template.braces === 'double' ? PLACEHOLDER : SINGLE_PLACEHOLDER;
  return template.text.replace(pattern, (whole, name: string) =>
    template.placeholders.has(name) ? (values[name] ?? whole) : whole,
  );
}

/** The template of the n-th conversation (1-based); past the last rung the last one repeats, or a cycling ladder starts over. */
export function rungFor(ladder: PromptLadder, conversation: number): Template {
  const count = ladder.rungs.length;
  return ladder.rungs[ladder.cycle ? (conversation - 1) % count : Math.min(conversation, count) - 1]!;
}
