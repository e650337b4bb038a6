// The prompt ladder: built-in rungs show the original source and what DiscoPoP found, the last rung
// repeats, substitution is one pass, and --prompt-dir names an unknown placeholder's file and line and
// refuses gaps and rungs missing the patches or diagnostics.
import { cp, mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { DISCOPOP_TEMPLATES_VARIABLE } from '../../src/repair/discopop-templates.js';
import { BUILTIN_PROMPT_DIR, loadPromptLadder, renderTemplate, rungFor } from '../../src/repair/ladder.js';

/** A template set of our own in DiscoPoP's format: its file names, `{placeholder}`s, a leading comment. */
const DISCOPOP_SET = path.resolve('fixtures/discopop-templates');
/** A DiscoPoP checkout (its library/ holds discopop_library) to check against the real templates. */
const DISCOPOP_SRC = process.env.DISCOPOP_SRC;

async function copyOf(dir: string): Promise<string> {
  const copy = await mkdtemp(path.join(os.tmpdir(), 'ladder-'));
  dirs.push(copy);
  await cp(dir, copy, { recursive: true });
  return copy;
}

const dirs: string[] = [];
function copyOfBuiltin(): Promise<string> {
  return copyOf(BUILTIN_PROMPT_DIR);
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('the built-in prompt ladder', () => {
  it('has three rungs, each showing the original source, the last what DiscoPoP found, and every rung states the answer format', async () => {
    const ladder = await loadPromptLadder(undefined, process.env);
    expect(ladder.rungs.map((r) => r.name)).toEqual(['rung-1.md', 'rung-2.md', 'rung-3.md']);
    for (const rung of ladder.rungs) expect([...rung.placeholders]).toContain('source_context');
    expect([...ladder.rungs[1]!.placeholders]).not.toContain('discopop_findings');
    expect([...ladder.rungs[2]!.placeholders]).toContain('discopop_findings');
    for (const rung of [...ladder.rungs, ladder.followUp]) {
      const prose = rung.text.replace(/\s+/g, ' ');
      expect(prose).toMatch(/one unified diff .*per file you change/);
      expect(prose).toMatch(/paths (exactly )?as in the generated patch headers/);
      expect(prose).toMatch(/`#pragma omp` directive/);
      expect(prose).toMatch(/Do not try to edit/);
    }
    expect(ladder.system).toMatch(/cannot read or change any file/);
  });

  it('repeats the last rung when there are more conversations than rungs', async () => {
    const ladder = await loadPromptLadder(undefined, process.env);
    expect([1, 2, 3, 4, 7].map((n) => rungFor(ladder, n).name)).toEqual([
      'rung-1.md',
      'rung-2.md',
      'rung-3.md',
      'rung-3.md',
      'rung-3.md',
    ]);
  });

  it('substitutes in one pass, leaving braces inside values alone', async () => {
    const ladder = await loadPromptLadder(undefined, process.env);
    const text = renderTemplate(ladder.followUp, {
      check: 'builds',
      reason: 'error: {{diagnostics}} is not a thing',
      suggestion_id: '3',
      files: 'a.c',
    });
    expect(text).toContain('rejected at the "builds" check');
    expect(text).toContain('error: {{diagnostics}} is not a thing');
  });
});

describe('--prompt-dir', () => {
  it('accepts a directory with a single rung', async () => {
    const dir = await copyOfBuiltin();
    await unlink(path.join(dir, 'rung-2.md'));
    await unlink(path.join(dir, 'rung-3.md'));
    const ladder = await loadPromptLadder(dir, process.env);
    expect(ladder.rungs).toHaveLength(1);
    expect(ladder.dir).toBe(dir);
  });

  it.each([
    ['rung-1.md', 'missing prompt template'],
    ['follow-up.md', 'missing prompt template'],
    ['system.md', 'missing prompt template'],
  ])('refuses a directory without %s', async (file, message) => {
    const dir = await copyOfBuiltin();
    await unlink(path.join(dir, file));
    const error = await loadPromptLadder(dir, process.env).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message.startsWith(`${path.join(dir, file)}: ${message}`)).toBe(true);
  });

  it('refuses a gap in the rung numbers', async () => {
    const dir = await copyOfBuiltin();
    await unlink(path.join(dir, 'rung-2.md'));
    await expect(loadPromptLadder(dir, process.env)).rejects.toThrow(
      /rung-2\.md: missing prompt template \(rungs must be numbered/,
    );
  });

  it('names the file and line of an unknown placeholder', async () => {
    const dir = await copyOfBuiltin();
    await writeFile(
      path.join(dir, 'rung-2.md'),
      'Fix this:\n{{generated_patches}}\n{{diagnostics}}\n{{sourcecontext}}\n',
    );
    const error = await loadPromptLadder(dir, process.env).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe(
      `${path.join(dir, 'rung-2.md')}: line 4: unknown placeholder {{sourcecontext}}; known: suggestion_id, pattern_type, files, generated_patches, diagnostics, source_context, context_lines, discopop_findings`,
    );
  });

  it('refuses a rung that does not show the patches or the diagnostics', async () => {
    const dir = await copyOfBuiltin();
    await writeFile(path.join(dir, 'rung-1.md'), 'Please fix suggestion {{suggestion_id}}.\n');
    await expect(loadPromptLadder(dir, process.env)).rejects.toThrow(
      `${path.join(dir, 'rung-1.md')}: missing required placeholder {{generated_patches}}, {{diagnostics}}`,
    );
  });

  it('refuses a follow-up without the reason, and placeholders in the system prompt', async () => {
    const dir = await copyOfBuiltin();
    await writeFile(path.join(dir, 'follow-up.md'), 'Try again ({{check}}).\n');
    await expect(loadPromptLadder(dir, process.env)).rejects.toThrow(
      /follow-up\.md: missing required placeholder \{\{reason\}\}/,
    );
    await cp(path.join(BUILTIN_PROMPT_DIR, 'follow-up.md'), path.join(dir, 'follow-up.md'));
    await writeFile(path.join(dir, 'system.md'), 'You fix {{pattern_type}} patches.\n');
    await expect(loadPromptLadder(dir, process.env)).rejects.toThrow(
      /system\.md: line 1: unknown placeholder \{\{pattern_type\}\}; this template takes none/,
    );
  });

  it('refuses an unclosed placeholder', async () => {
    const dir = await copyOfBuiltin();
    await writeFile(path.join(dir, 'rung-3.md'), '{{generated_patches}}\n{{diagnostics}}\n\n{{discopop_findings\n');
    await expect(loadPromptLadder(dir, process.env)).rejects.toThrow(
      /rung-3\.md: line 4: "\{\{" without a closing "\}\}"/,
    );
  });

  it('says when the directory itself is missing', async () => {
    await expect(loadPromptLadder('/nonexistent/prompts', process.env)).rejects.toThrow(
      '/nonexistent/prompts: cannot read the prompt directory (ENOENT)',
    );
  });
});

describe("--prompt-dir with DiscoPoP's template set", () => {
  it('walks minimal → context → guided and cycles past the last, with retry.md as the follow-up and the built-in system prompt', async () => {
    const ladder = await loadPromptLadder(DISCOPOP_SET, process.env);
    const builtin = await loadPromptLadder(undefined, process.env);
    expect([1, 2, 3, 4, 5, 7].map((n) => rungFor(ladder, n).name)).toEqual([
      'minimal.md',
      'context.md',
      'guided.md',
      'minimal.md',
      'context.md',
      'minimal.md',
    ]);
    expect(ladder.followUp.name).toBe('retry.md');
    expect(ladder.system).toBe(builtin.system);
    expect(ladder.warnings).toEqual([]);
    expect([...rungFor(ladder, 3).placeholders].sort()).toEqual([
      'diagnostics',
      'identity',
      'original_source',
      'output_contract',
      'patch_blocks',
      'patched_source',
      'pattern_metadata',
    ]);
  });

  it('does not send the leading HTML comment', async () => {
    const ladder = await loadPromptLadder(DISCOPOP_SET, process.env);
    for (const template of [...ladder.rungs, ladder.followUp]) expect(template.text).not.toContain('<!--');
    expect(ladder.rungs[0]!.text.startsWith('A build broke after an OpenMP patch was applied')).toBe(true);
  });

  /** Our set with its own minimal.md, without guided.md and retry.md, which then come from elsewhere. */
  async function partialSet(): Promise<string> {
    const dir = await copyOf(DISCOPOP_SET);
    await writeFile(path.join(dir, 'minimal.md'), 'Our lab wording.\n\n{patch_blocks}\n\n{diagnostics}\n');
    await unlink(path.join(dir, 'guided.md'));
    await unlink(path.join(dir, 'retry.md'));
    return dir;
  }

  /** A DiscoPoP installed where python3 finds it through PYTHONPATH, its templates told apart by their text. */
  async function installedDiscopop(): Promise<{ site: string; prompts: string }> {
    const site = await mkdtemp(path.join(os.tmpdir(), 'site-'));
    dirs.push(site);
    const prompts = path.join(site, 'discopop_library', 'PatchRepair', 'prompts');
    await mkdir(prompts, { recursive: true });
    await writeFile(path.join(site, 'discopop_library', '__init__.py'), '');
    await writeFile(path.join(site, 'discopop_library', 'PatchRepair', '__init__.py'), '');
    await writeFile(path.join(prompts, 'guided.md'), '<!-- installed -->\nInstalled guided.\n{pattern_metadata}\n');
    await writeFile(path.join(prompts, 'retry.md'), '<!-- installed -->\nInstalled retry.\n{failure}\n');
    return { site, prompts };
  }

  it("takes a file the set lacks from the user's installed DiscoPoP, found by python3, and says so once", async () => {
    const dir = await partialSet();
    const { site, prompts } = await installedDiscopop();
    const ladder = await loadPromptLadder(dir, { PATH: process.env.PATH, PYTHONPATH: site });
    expect(ladder.rungs.map((r) => r.name)).toEqual(['minimal.md', 'context.md', 'guided.md']);
    expect(ladder.rungs[0]!.text).toBe('Our lab wording.\n\n{patch_blocks}\n\n{diagnostics}\n');
    expect(ladder.rungs[1]!.file).toBe(path.join(dir, 'context.md'));
    expect(ladder.rungs[2]).toMatchObject({ file: path.join(prompts, 'guided.md'), braces: 'single' });
    expect(ladder.rungs[2]!.text).toBe('Installed guided.\n{pattern_metadata}\n');
    expect([...ladder.rungs[2]!.placeholders]).toEqual(['pattern_metadata']);
    expect(ladder.followUp).toMatchObject({ name: 'retry.md', file: path.join(prompts, 'retry.md') });
    expect(ladder.warnings).toEqual([
      `${dir}: DiscoPoP template set without guided.md, retry.md; using guided.md, retry.md from the installed DiscoPoP, ${prompts} (found by python3 (discopop_library at ${path.join(site, 'discopop_library')}))`,
    ]);
    expect(rungFor(ladder, 4).name).toBe('minimal.md');
  });

  it("uses patch-repair's own rung for a file the installed DiscoPoP lacks too, in the same warning", async () => {
    const dir = await partialSet();
    await unlink(path.join(dir, 'context.md'));
    const { site, prompts } = await installedDiscopop();
    const ladder = await loadPromptLadder(dir, { PATH: process.env.PATH, PYTHONPATH: site });
    expect(ladder.rungs.map((r) => r.name)).toEqual(['minimal.md', 'rung-2.md', 'guided.md']);
    expect(ladder.warnings).toEqual([
      `${dir}: DiscoPoP template set without guided.md, retry.md, context.md; using guided.md, retry.md from the installed DiscoPoP, ${prompts} (found by python3 (discopop_library at ${path.join(site, 'discopop_library')})); patch-repair's own rung-2.md for context.md (${prompts} lacks it)`,
    ]);
  });

  it(`takes them from the folder $${DISCOPOP_TEMPLATES_VARIABLE} names, ahead of python3, and refuses a folder that is not there`, async () => {
    const dir = await partialSet();
    const named = await installedDiscopop();
    const other = await installedDiscopop();
    const env = { PATH: process.env.PATH, PYTHONPATH: other.site, [DISCOPOP_TEMPLATES_VARIABLE]: named.prompts };
    const ladder = await loadPromptLadder(dir, env);
    expect(ladder.rungs[2]!.file).toBe(path.join(named.prompts, 'guided.md'));
    expect(ladder.warnings[0]).toContain(`(found by $${DISCOPOP_TEMPLATES_VARIABLE})`);
    const missing = path.join(named.site, 'nowhere');
    await expect(loadPromptLadder(dir, { ...env, [DISCOPOP_TEMPLATES_VARIABLE]: missing })).rejects.toThrow(
      new UsageError(`$${DISCOPOP_TEMPLATES_VARIABLE}=${missing}: no such folder`),
    );
  });

  it("uses patch-repair's own rung of that place when no DiscoPoP is installed, and says so once", async () => {
    const dir = await partialSet();
    // No python3 on PATH: nothing can be found, whatever this machine has installed.
    const ladder = await loadPromptLadder(dir, { PATH: dir });
    const builtin = await loadPromptLadder(undefined, process.env);
    expect(ladder.rungs.map((r) => r.name)).toEqual(['minimal.md', 'context.md', 'rung-3.md']);
    expect(ladder.rungs[2]).toEqual(builtin.rungs[2]);
    expect(ladder.followUp).toEqual(builtin.followUp);
    expect(ladder.warnings).toEqual([
      `${dir}: DiscoPoP template set without guided.md, retry.md; using patch-repair's own rung-3.md, follow-up.md for guided.md, retry.md (no installed DiscoPoP found: python3 finds no discopop_library with a PatchRepair/prompts/ folder, and $${DISCOPOP_TEMPLATES_VARIABLE} is unset)`,
    ]);
  });

  it('looks for no installed DiscoPoP when the set is complete', async () => {
    // With an unreadable override a lookup would throw.
    const ladder = await loadPromptLadder(DISCOPOP_SET, { PATH: '', [DISCOPOP_TEMPLATES_VARIABLE]: '/nowhere' });
    expect(ladder.warnings).toEqual([]);
  });

  it.skipIf(DISCOPOP_SRC === undefined)(
    "reads a real DiscoPoP's template set, as --prompt-dir and as the installed fallback (set DISCOPOP_SRC to a DiscoPoP checkout to run)",
    async () => {
      const library = path.join(DISCOPOP_SRC!, 'library');
      const theirs = path.join(library, 'discopop_library', 'PatchRepair', 'prompts');
      const whole = await loadPromptLadder(theirs, { PATH: process.env.PATH });
      expect(whole.warnings).toEqual([]);
      for (const template of [...whole.rungs, whole.followUp]) {
        expect(template.text).not.toContain('<!--');
        expect(template.placeholders.size).toBeGreaterThan(0);
      }
      expect([...whole.rungs[2]!.placeholders]).toContain('pattern_metadata');
      const ladder = await loadPromptLadder(await partialSet(), { PATH: process.env.PATH, PYTHONPATH: library });
      expect(ladder.rungs[2]!.file).toBe(path.join(theirs, 'guided.md'));
      expect(ladder.followUp.file).toBe(path.join(theirs, 'retry.md'));
      expect(ladder.warnings[0]).toContain('from the installed DiscoPoP');
    },
  );

  it('leaves any other {word} as written, with one warning naming the file', async () => {
    const dir = await copyOf(DISCOPOP_SET);
    await writeFile(
      path.join(dir, 'minimal.md'),
      'Fix it.\n\n{patch_blocks}\n\nint f(int n) { for (int i = 0; i < n; i++) {x[i] = {0};} }\n{language} {language} {diagnostics}\n',
    );
    const ladder = await loadPromptLadder(dir, process.env);
    expect(ladder.warnings).toEqual([
      `${path.join(dir, 'minimal.md')}: {language} left as written: not a placeholder of DiscoPoP's templates`,
    ]);
    const text = renderTemplate(ladder.rungs[0]!, { patch_blocks: 'PATCHES {diagnostics}', diagnostics: 'ERRORS' });
    expect(text).toBe(
      'Fix it.\n\nPATCHES {diagnostics}\n\nint f(int n) { for (int i = 0; i < n; i++) {x[i] = {0};} }\n{language} {language} ERRORS\n',
    );
  });
});

it("strips a leading HTML comment from patch-repair's own templates too, and only a leading one", async () => {
  const dir = await copyOfBuiltin();
  const followUp = path.join(dir, 'follow-up.md');
  await writeFile(
    followUp,
    '<!-- the lab wording, edited 2026-11 -->\n\nRejected at {{check}}: {{reason}}\n<!-- keep this -->\n',
  );
  const ladder = await loadPromptLadder(dir, process.env);
  expect(ladder.followUp.text).toBe('Rejected at {{check}}: {{reason}}\n<!-- keep this -->\n');
});
