// Re-derives a file's patch with the real GNU `diff -Naru`, as DiscoPoP's patch generator does,
// so that a repaired patch reads byte for byte like its generated neighbours. Only the two header
// paths are replaced: every other byte is diff's, CRs of a CRLF file and non-UTF-8 bytes included,
// because GNU patch compares bytes and a patch without a CRLF file's CRs applies only with fuzz.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeText } from '../bytes.js';
import { runProcess } from '../process.js';

export interface CanonicalRequest {
  /** Path for the `---` line: the generated patch's original absolute path. */
  oldHeaderPath: string;
  /** Path for the `+++` line: the same with `.discopop_patch_generator.temp`. */
  newHeaderPath: string;
  original: string;
  patched: string;
  scratchDir: string;
}

/** The canonical patch text; '' when both contents are identical. Throws only if diff cannot run. */
export async function canonicalPatch(o: CanonicalRequest): Promise<string> {
  const dir = await mkdtemp(join(o.scratchDir, 'canonical-'));
  try {
    await writeFile(join(dir, 'original'), encodeText(o.original));
    await writeFile(join(dir, 'patched'), encodeText(o.patched));
    const outcome = await runProcess({
      command: 'diff',
      args: ['-Naru', 'original', 'patched'],
      cwd: dir,
      timeoutMs: 60_000,
      env: { LC_ALL: 'C' },
    });
    if (outcome.kind !== 'exited' || outcome.exitCode > 1) {
      const why =
        outcome.kind === 'exited'
          ? `exit ${outcome.exitCode}: ${outcome.stderr.trim()}`
          : outcome.kind === 'spawn-failed'
            ? outcome.message
            : outcome.kind;
      throw new Error(`diff -Naru failed (${why})`);
    }
    if (outcome.exitCode === 0) return '';
    return withHeaderPaths(outcome.stdout, o.oldHeaderPath, o.newHeaderPath);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function withHeaderPaths(text: string, oldPath: string, newPath: string): string {
  const lines = text.split('\n');
  lines[0] = replacePath(lines[0]!, '--- ', oldPath);
  lines[1] = replacePath(lines[1]!, '+++ ', newPath);
  return lines.join('\n');
}

function replacePath(line: string, prefix: string, path: string): string {
  if (!line.startsWith(prefix)) throw new Error(`unexpected diff header line: ${line}`);
  const tab = line.indexOf('\t');
  return `${prefix}${path}${tab >= 0 ? line.slice(tab) : ''}`;
}
