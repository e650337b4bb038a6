// Correct agent answers for the demo's broken suggestions: the built-in repairer's verified patch
// sets, written the way a model answers (one ```diff block per file). `<root>` stands for the
// project root, so one set of answers serves every copy of the fixture.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { runProcess } from '../../src/process.js';
import { instantiateFixture } from '../../scripts/instantiate-fixture.mjs';
import type { ScriptedReply } from './scripted-agent.js';

/** The demo's broken suggestions, in the considered order. */
export const DEMO_FAILING = ['2', '3', '4', '5', '6', '9'];

export async function demoAnswers(cli: string): Promise<Record<string, string>> {
  const reference = instantiateFixture('demo');
  try {
    const run = await runProcess({
      command: process.execPath,
      args: [cli, '--dot-dp-path', reference.dotDir, '--backend', 'builtin'],
      cwd: reference.dotDir,
      timeoutMs: 240_000,
    });
    if (run.kind !== 'exited' || run.exitCode !== 0)
      throw new Error(`built-in reference run failed: ${run.kind === 'exited' ? run.stdout : run.kind}`);
    const answers: Record<string, string> = {};
    for (const id of DEMO_FAILING) {
      const dir = path.join(reference.dotDir, 'patch_generator', id);
      const diffs = readdirSync(dir).map((name) =>
        readFileSync(path.join(dir, name), 'utf8').replaceAll(reference.root, '<root>'),
      );
      answers[id] =
        `Here is the corrected patch set.\n\n${diffs.map((diff) => `\`\`\`diff\n${diff}\`\`\``).join('\n\n')}\n`;
    }
    return answers;
  } finally {
    rmSync(path.dirname(reference.root), { recursive: true, force: true });
  }
}

/** Each suggestion's first prompt gets its own reply, whichever order the calls come in. */
export function perSuggestion(ids: readonly string[], reply: (id: string) => ScriptedReply): ScriptedReply[] {
  return [{ when: ids.map((id) => [`parallelizing suggestion ${id} (`, reply(id)] as [string, ScriptedReply]) }];
}

/** The correct answer to every suggestion of the copy at `root`. */
export function correctReplies(answers: Record<string, string>, root: string): ScriptedReply[] {
  return perSuggestion(Object.keys(answers), (id) => answers[id]!.replaceAll('<root>', root));
}
