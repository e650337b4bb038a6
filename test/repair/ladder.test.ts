// The prompt ladder: built-in rungs show the original source and what DiscoPoP found, the last rung
// repeats, substitution is one pass, and --prompt-dir names an unknown placeholder's file and line and
// refuses gaps and rungs missing the patches or diagnostics.
import { cp, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { BUILTIN_PROMPT_DIR, loadPromptLadder, renderTemplate, rungFor } from '../../src/repair/ladder.js';

const DISCOPOP_SET = path.resolve('prompts/discopop');

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
    const ladder = await loadPromptLadder();
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
    const ladder = await loadPromptLadder();
    expect([1, 2, 3, 4, 7].map((n) => rungFor(ladder, n).name)).toEqual([
      'rung-1.md',
      'rung-2.md',
      'rung-3.md',
      'rung-3.md',
      'rung-3.md',
    ]);
  });

  it('substitutes in one pass, leaving braces inside values alone', async () => {
    const ladder = await loadPromptLadder();
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
    const ladder = await loadPromptLadder(dir);
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
    const error = await loadPromptLadder(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message.startsWith(`${path.join(dir, file)}: ${message}`)).toBe(true);
  });

  it('refuses a gap in the rung numbers', async () => {
    const dir = await copyOfBuiltin();
    await unlink(path.join(dir, 'rung-2.md'));
    await expect(loadPromptLadder(dir)).rejects.toThrow(/rung-2\.md: missing prompt template \(rungs must be numbered/);
  });

  it('names the file and line of an unknown placeholder', async () => {
    const dir = await copyOfBuiltin();
    await writeFile(
      path.join(dir, 'rung-2.md'),
      'Fix this:\n{{generated_patches}}\n{{diagnostics}}\n{{sourcecontext}}\n',
    );
    const error = await loadPromptLadder(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe(
      `${path.join(dir, 'rung-2.md')}: line 4: unknown placeholder {{sourcecontext}}; known: suggestion_id, pattern_type, files, generated_patches, diagnostics, source_context, context_lines, discopop_findings`,
    );
  });

  it('refuses a rung that does not show the patches or the diagnostics', async () => {
    const dir = await copyOfBuiltin();
    await writeFile(path.join(dir, 'rung-1.md'), 'Please fix suggestion {{suggestion_id}}.\n');
    await expect(loadPromptLadder(dir)).rejects.toThrow(
      `${path.join(dir, 'rung-1.md')}: missing required placeholder {{generated_patches}}, {{diagnostics}}`,
    );
  });

  it('refuses a follow-up without the reason, and placeholders in the system prompt', async () => {
    const dir = await copyOfBuiltin();
    await writeFile(path.join(dir, 'follow-up.md'), 'Try again ({{check}}).\n');
    await expect(loadPromptLadder(dir)).rejects.toThrow(/follow-up\.md: missing required placeholder \{\{reason\}\}/);
    await cp(path.join(BUILTIN_PROMPT_DIR, 'follow-up.md'), path.join(dir, 'follow-up.md'));
    await writeFile(path.join(dir, 'system.md'), 'You fix {{pattern_type}} patches.\n');
    await expect(loadPromptLadder(dir)).rejects.toThrow(
      /system\.md: line 1: unknown placeholder \{\{pattern_type\}\}; this template takes none/,
    );
  });

  it('refuses an unclosed placeholder', async () => {
    const dir = await copyOfBuiltin();
    await writeFile(path.join(dir, 'rung-3.md'), '{{generated_patches}}\n{{diagnostics}}\n\n{{discopop_findings\n');
    await expect(loadPromptLadder(dir)).rejects.toThrow(/rung-3\.md: line 4: "\{\{" without a closing "\}\}"/);
  });

  it('says when the directory itself is missing', async () => {
    await expect(loadPromptLadder('/nonexistent/prompts')).rejects.toThrow(
      '/nonexistent/prompts: cannot read the prompt directory (ENOENT)',
    );
  });
});

describe("--prompt-dir with DiscoPoP's template set", () => {
  it('walks minimal → context → guided and cycles past the last, with retry.md as the follow-up and the built-in system prompt', async () => {
    const ladder = await loadPromptLadder(DISCOPOP_SET);
    const builtin = await loadPromptLadder();
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

  it('does not send the licence header, a leading HTML comment', async () => {
    const ladder = await loadPromptLadder(DISCOPOP_SET);
    for (const template of [...ladder.rungs, ladder.followUp]) {
      expect(template.text).not.toContain('<!--');
      expect(template.text).not.toContain('BSD');
    }
    expect(ladder.rungs[0]!.text.startsWith('You are fixing a compiler error')).toBe(true);
  });

  it("falls back to DiscoPoP's own template of that name for a file the set lacks, as DiscoPoP does", async () => {
    const dir = await copyOf(DISCOPOP_SET);
    await writeFile(path.join(dir, 'minimal.md'), 'Our lab wording.\n\n{patch_blocks}\n\n{diagnostics}\n');
    await unlink(path.join(dir, 'guided.md'));
    await unlink(path.join(dir, 'retry.md'));
    const ladder = await loadPromptLadder(dir);
    expect(ladder.rungs.map((r) => r.name)).toEqual(['minimal.md', 'context.md', 'guided.md']);
    expect(ladder.rungs[0]!.text).toBe('Our lab wording.\n\n{patch_blocks}\n\n{diagnostics}\n');
    // DiscoPoP's guided text, shipped with patch-repair under its licence, without the licence header.
    const own = await readFile(path.join(BUILTIN_PROMPT_DIR, 'discopop', 'guided.md'), 'utf8');
    expect(own).toContain('3-Clause BSD License');
    expect(ladder.rungs[2]!.file).toBe(path.join(BUILTIN_PROMPT_DIR, 'discopop', 'guided.md'));
    expect(own.endsWith(ladder.rungs[2]!.text)).toBe(true);
    expect([...ladder.rungs[2]!.placeholders]).toContain('pattern_metadata');
    expect(ladder.followUp).toMatchObject({
      name: 'retry.md',
      braces: 'single',
      file: path.join(BUILTIN_PROMPT_DIR, 'discopop', 'retry.md'),
    });
    expect(ladder.warnings).toEqual([]);
    expect(rungFor(ladder, 4).name).toBe('minimal.md');
  });

  it("ships DiscoPoP's templates with their licence and origin", async () => {
    const dir = path.join(BUILTIN_PROMPT_DIR, 'discopop');
    expect(await readFile(path.join(dir, 'LICENSE'), 'utf8')).toContain(
      'Copyright (c) 2020, Technische Universitaet Darmstadt, Germany',
    );
    expect(await readFile(path.join(dir, 'ORIGIN.md'), 'utf8')).toContain('53a01f2');
  });

  it('leaves any other {word} as written, with one warning naming the file', async () => {
    const dir = await copyOf(DISCOPOP_SET);
    await writeFile(
      path.join(dir, 'minimal.md'),
      'Fix it.\n\n{patch_blocks}\n\nint f(int n) { for (int i = 0; i < n; i++) {x[i] = {0};} }\n{language} {language} {diagnostics}\n',
    );
    const ladder = await loadPromptLadder(dir);
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
    '<!-- Copyright 2026 the lab; BSD-3-Clause -->\n\nRejected at {{check}}: {{reason}}\n<!-- keep this -->\n',
  );
  const ladder = await loadPromptLadder(dir);
  expect(ladder.followUp.text).toBe('Rejected at {{check}}: {{reason}}\n<!-- keep this -->\n');
});
