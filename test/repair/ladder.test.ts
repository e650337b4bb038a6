import { cp, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { BUILTIN_PROMPT_DIR, loadPromptLadder, renderTemplate, rungFor } from '../../src/repair/ladder.js';

const dirs: string[] = [];
async function copyOfBuiltin(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ladder-'));
  dirs.push(dir);
  await cp(BUILTIN_PROMPT_DIR, dir, { recursive: true });
  return dir;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('the built-in prompt ladder', () => {
  it('has three rungs, each richer than the last, and every rung states the answer format', async () => {
    const ladder = await loadPromptLadder();
    expect(ladder.rungs.map((r) => r.name)).toEqual(['rung-1.md', 'rung-2.md', 'rung-3.md']);
    expect([...ladder.rungs[0]!.placeholders]).not.toContain('source_context');
    expect([...ladder.rungs[1]!.placeholders]).toContain('source_context');
    expect([...ladder.rungs[2]!.placeholders]).toEqual(expect.arrayContaining(['source_context', 'discopop_findings']));
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
    expect([1, 2, 3, 4, 7].map((n) => rungFor(ladder, n).name)).toEqual(['rung-1.md', 'rung-2.md', 'rung-3.md', 'rung-3.md', 'rung-3.md']);
  });

  it('substitutes in one pass, leaving braces inside values alone', async () => {
    const ladder = await loadPromptLadder();
    const text = renderTemplate(ladder.followUp, { check: 'builds', reason: 'error: {{diagnostics}} is not a thing', suggestion_id: '3', files: 'a.c' });
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
    await writeFile(path.join(dir, 'rung-2.md'), 'Fix this:\n{{generated_patches}}\n{{diagnostics}}\n{{sourcecontext}}\n');
    const error = await loadPromptLadder(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe(
      `${path.join(dir, 'rung-2.md')}: line 4: unknown placeholder {{sourcecontext}}; known: suggestion_id, pattern_type, files, generated_patches, diagnostics, source_context, context_lines, discopop_findings`,
    );
  });

  it('refuses a rung that does not show the patches or the diagnostics', async () => {
    const dir = await copyOfBuiltin();
    await writeFile(path.join(dir, 'rung-1.md'), 'Please fix suggestion {{suggestion_id}}.\n');
    await expect(loadPromptLadder(dir)).rejects.toThrow(`${path.join(dir, 'rung-1.md')}: missing required placeholder {{generated_patches}}, {{diagnostics}}`);
  });

  it('refuses a follow-up without the reason, and placeholders in the system prompt', async () => {
    const dir = await copyOfBuiltin();
    await writeFile(path.join(dir, 'follow-up.md'), 'Try again ({{check}}).\n');
    await expect(loadPromptLadder(dir)).rejects.toThrow(/follow-up\.md: missing required placeholder \{\{reason\}\}/);
    await cp(path.join(BUILTIN_PROMPT_DIR, 'follow-up.md'), path.join(dir, 'follow-up.md'));
    await writeFile(path.join(dir, 'system.md'), 'You fix {{pattern_type}} patches.\n');
    await expect(loadPromptLadder(dir)).rejects.toThrow(/system\.md: line 1: unknown placeholder \{\{pattern_type\}\}; this template takes none/);
  });

  it('refuses an unclosed placeholder', async () => {
    const dir = await copyOfBuiltin();
    await writeFile(path.join(dir, 'rung-3.md'), '{{generated_patches}}\n{{diagnostics}}\n\n{{discopop_findings\n');
    await expect(loadPromptLadder(dir)).rejects.toThrow(/rung-3\.md: line 4: "\{\{" without a closing "\}\}"/);
  });

  it('says when the directory itself is missing', async () => {
    await expect(loadPromptLadder('/nonexistent/prompts')).rejects.toThrow('/nonexistent/prompts: cannot read the prompt directory (ENOENT)');
  });
});
