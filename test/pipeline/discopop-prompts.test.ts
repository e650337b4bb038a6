// A DiscoPoP user's setup end to end through the built CLI: --prompt-dir at a template set in
// DiscoPoP's format (fixtures/discopop-templates), and a model answering as those templates ask (===BEGIN PATCH <file_id>=== blocks) or in
// OpenAI's apply_patch format. The scripted agent answers the demo's broken suggestions; real gcc
// verifies.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { useFixture } from '../helpers/fixture.js';
import { scriptedCalls, writeScriptedDescriptor } from '../helpers/scripted-agent.js';
import { readResults, runCli } from '../helpers/cli.js';

const DISCOPOP_SET = path.resolve('fixtures/discopop-templates');

/** The built-in repairer's verified patch of each file of suggestion `id`, for the project at `root`. */
async function verifiedPatches(root: string, id: string): Promise<Map<string, string>> {
  const reference = useFixture('demo');
  const run = await runCli(reference.dotDir, ['--dot-dp-path', reference.dotDir, '--backend', 'builtin', '-s', id]);
  expect(run.exitCode, run.stdout).toBe(0);
  const dir = path.join(reference.dotDir, 'patch_generator', id);
  return new Map(
    readdirSync(dir).map((name) => [
      name.replace(/\.patch$/, ''),
      readFileSync(path.join(dir, name), 'utf8').replaceAll(reference.root, root),
    ]),
  );
}

/** A unified diff as a V4A update: the path relative to `root`, each hunk opened by a bare `@@`. */
function asV4a(diff: string, root: string): string {
  const lines = diff.split('\n');
  const file = lines[0]!
    .slice(4)
    .split('\t')[0]!
    .slice(root.length + 1);
  const body = lines
    .slice(2)
    .filter((line) => line !== '')
    .map((line) => (line.startsWith('@@') ? '@@' : line));
  return ['*** Begin Patch', `*** Update File: ${file}`, ...body, '*** End Patch'].join('\n');
}

it("repairs with a template set in DiscoPoP's format and answers in DiscoPoP's blocks and in V4A", async () => {
  const { root, dotDir } = useFixture('demo');
  const [three, five] = [await verifiedPatches(root, '3'), await verifiedPatches(root, '5')];
  // DiscoPoP's contract names the file by id: the header's path is not even a file of the project.
  const blocks = [...three].map(
    ([fileId, diff]) =>
      `===BEGIN PATCH ${fileId}===\n${diff.replace(/^--- \S+/, '--- a/renamed.c').replace(/\n\+\+\+ \S+/, '\n+++ b/renamed.c')}===END PATCH ${fileId}===`,
  );
  const replies = [
    {
      when: [
        [
          '* Suggestion 3, a ',
          `The private clause names a variable that is not in scope; corrected:\n\n\`\`\`\n${blocks.join('\n')}\n\`\`\`\n`,
        ],
        [
          '* Suggestion 5, a ',
          `Here is the fix.\n\n${[...five.values()].map((diff) => asV4a(diff, root)).join('\n')}\n`,
        ],
      ] as [string, string][],
    },
  ];
  const { descriptorFile, stateFile } = await writeScriptedDescriptor({
    dir: path.join(path.dirname(dotDir), '..', 'agent'),
    replies,
  });
  const run = await runCli(dotDir, [
    '--dot-dp-path',
    dotDir,
    '--backend',
    descriptorFile,
    '--no-builtin',
    '--agent-jobs',
    '1',
    '--prompt-dir',
    DISCOPOP_SET,
    '-s',
    '3,5',
  ]);
  expect(run.exitCode, run.stdout + run.stderr).toBe(0);

  const results = readResults(dotDir);
  for (const id of ['3', '5'])
    expect(results.suggestions.find((s) => s.id === id)).toMatchObject({
      status: 'repaired',
      attempts: 1,
      accepted_attempt: 1,
    });
  const calls = await scriptedCalls(stateFile);
  expect(calls).toHaveLength(2);
  for (const call of calls) {
    expect(call.prompt).toContain('A build broke after an OpenMP patch was applied');
    expect(call.prompt).toContain('without the patch\n');
    expect(call.prompt).not.toContain('<!--');
    expect(call.prompt).not.toMatch(/\{(identity|patch_blocks|original_source|diagnostics|output_contract)\}/);
  }
  // The set is complete and uses only DiscoPoP's placeholders: no warning.
  expect(run.stderr).not.toContain('left as written');
});

it('takes the files a DiscoPoP set lacks from the installed DiscoPoP python3 finds, and says so once', async () => {
  const { root, dotDir } = useFixture('demo');
  const three = await verifiedPatches(root, '3');
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'installed-discopop-'));
  try {
    const partial = path.join(scratch, 'lab-set');
    cpSync(DISCOPOP_SET, partial, { recursive: true });
    rmSync(path.join(partial, 'minimal.md'));
    rmSync(path.join(partial, 'retry.md'));
    const site = path.join(scratch, 'site');
    const installed = path.join(site, 'discopop_library', 'PatchRepair', 'prompts');
    mkdirSync(installed, { recursive: true });
    writeFileSync(path.join(site, 'discopop_library', '__init__.py'), '');
    writeFileSync(
      path.join(installed, 'minimal.md'),
      '<!-- installed -->\nThe installed minimal template.\n\n{identity}\n\n{patch_blocks}\n\n{diagnostics}\n\n{output_contract}\n',
    );
    writeFileSync(path.join(installed, 'retry.md'), '<!-- installed -->\n{failure}\n\n{output_contract}\n');
    const blocks = [...three].map(([fileId, diff]) => `===BEGIN PATCH ${fileId}===\n${diff}===END PATCH ${fileId}===`);
    const { descriptorFile, stateFile } = await writeScriptedDescriptor({
      dir: path.join(path.dirname(dotDir), '..', 'agent'),
      replies: [{ when: [['* Suggestion 3, a ', blocks.join('\n')]] as [string, string][] }],
    });
    const run = await runCli(
      dotDir,
      ['--dot-dp-path', dotDir, '--backend', descriptorFile, '--no-builtin', '--prompt-dir', partial, '-s', '3'],
      { env: { PYTHONPATH: site } },
    );
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(readResults(dotDir).suggestions.find((s) => s.id === '3')).toMatchObject({ status: 'repaired' });
    const [call] = await scriptedCalls(stateFile);
    expect(call!.prompt).toContain('The installed minimal template.');
    expect(call!.prompt).not.toContain('<!--');
    const warning = `${partial}: DiscoPoP template set without minimal.md, retry.md; using minimal.md, retry.md from the installed DiscoPoP, ${installed}`;
    expect((run.stdout + run.stderr).split(warning)).toHaveLength(2);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
