// DiscoPoP's device-update pseudo-directive through the built CLI: a suggestion whose generated
// patch adds `#pragma omp target update Device(1) --> Device(0 -> 1) Var(…)` fails under gcc, is
// classed `pseudo-directive`, and is recorded `failed` without a single try — no built-in try and no
// agent call — while the scripted agent stays available (and is called) for the demo's other
// broken suggestion. The generated patch is made with real diff -Naru, as DiscoPoP's generator does.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runProcess } from '../../src/process.js';
import type { RunResults } from '../../src/formats/results.js';
import { useFixture } from '../helpers/fixture.js';
import { readResults, runCli } from '../helpers/cli.js';
import { scriptedCalls, writeScriptedDescriptor } from '../helpers/scripted-agent.js';

const PSEUDO = '    #pragma omp target update Device(1) --> Device(0 -> 1) Var(x[0:n])';

/** Suggestion 10 of the demo: dot.c (file id 3) with the pseudo-directive above dot()'s return. */
async function addDeviceUpdateSuggestion(root: string, dotDir: string): Promise<string> {
  const source = path.join(root, 'src', 'dot.c');
  const lines = readFileSync(source, 'utf8').split('\n');
  const returnRow = lines.indexOf('    return sum;');
  expect(returnRow).toBeGreaterThan(0);
  lines.splice(returnRow, 0, PSEUDO);
  const temp = `${source}.discopop_patch_generator.temp`;
  writeFileSync(temp, lines.join('\n'));
  const diff = await runProcess({ command: 'diff', args: ['-Naru', source, temp], cwd: root });
  expect(diff.kind === 'exited' && diff.exitCode).toBe(1);
  const folder = path.join(dotDir, 'patch_generator', '10');
  mkdirSync(folder);
  const patch = path.join(folder, '3.patch');
  writeFileSync(patch, diff.kind === 'exited' ? diff.stdout : '');
  await runProcess({ command: 'rm', args: [temp], cwd: root });
  return patch;
}

function record(file: RunResults, id: string) {
  return file.suggestions.find((s) => s.id === id)!;
}

async function run(args: string[]) {
  const { root, dotDir } = useFixture('demo');
  const patch = await addDeviceUpdateSuggestion(root, dotDir);
  const generated = readFileSync(patch, 'utf8');
  const { descriptorFile, stateFile } = await writeScriptedDescriptor({
    dir: path.join(path.dirname(root), 'agent'),
    replies: ['No patch from me.'],
  });
  const cli = await runCli(dotDir, [
    '--dot-dp-path',
    dotDir,
    '--backend',
    descriptorFile,
    '-s',
    '3,10',
    '--prompts',
    '1',
    '--retries',
    '0',
    ...args,
  ]);
  return {
    cli,
    file: readResults(dotDir),
    calls: await scriptedCalls(stateFile),
    patchAfter: readFileSync(patch, 'utf8'),
    generated,
  };
}

const REASON =
  /src\/dot\.c:12: '#pragma omp target update Device\(1\) --> Device\(0 -> 1\) Var\(x\[0:n\]\)' is not an OpenMP directive .*the suggestion must be regenerated/;

it('the device-update pseudo-directive is failed with its reason, without a built-in try or an agent call', async () => {
  const { cli, file, calls, patchAfter, generated } = await run([]);
  expect(cli.exitCode, cli.stdout + cli.stderr).toBe(1);
  expect(record(file, '10')).toMatchObject({
    status: 'failed',
    error_class: 'pseudo-directive',
    attempts: 0,
    unanswered: 0,
    builtin: { tries: 0 },
  });
  expect(record(file, '10').reason).toMatch(REASON);
  expect(record(file, '10').first_error).toContain("expected '#pragma omp' clause before 'Device'");
  // The built-in repairer repairs suggestion 3, so the agent is never needed.
  expect(record(file, '3')).toMatchObject({ status: 'repaired', builtin: { tries: 1, accepted: true } });
  expect(calls).toEqual([]);
  expect(patchAfter).toBe(generated);
});

it('with the built-in repairer off, the agent is called for the other suggestion and never for the pseudo-directive', async () => {
  const { cli, file, calls } = await run(['--no-builtin']);
  expect(cli.exitCode, cli.stdout + cli.stderr).toBe(1);
  expect(record(file, '10')).toMatchObject({
    status: 'failed',
    error_class: 'pseudo-directive',
    attempts: 0,
    builtin: { tries: 0 },
  });
  expect(record(file, '10').reason).toMatch(REASON);
  expect(record(file, '3')).toMatchObject({ status: 'failed', attempts: 1 });
  expect(calls).toHaveLength(1);
  expect(calls[0]!.prompt).toContain('matvec.c');
  expect(calls[0]!.prompt).not.toContain('Device(1)');
});
