// The objects passed screens compiled, kept aside for the confirmation builds that carry their
// suggestions: made by the same command from the same patched source, they are placed over the
// patched sources with a newer time, so make links them instead of compiling the units again.
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { leavesRoot } from '../compile.js';
import type { RecordedCompile } from '../compiler-record.js';

export interface StashedObject {
  /** Where the object belongs, relative to the project root. */
  rel: string;
  /** Its copy in the stash. */
  from: string;
}

export class ObjectStash {
  private readonly kept = new Map<string, StashedObject[]>();

  constructor(
    private readonly o: {
      dir: string;
      projectRoot: string;
      /** Only where every workspace copies one reference build's outputs (not path-dependent ones). */
      reusable: () => boolean;
    },
  ) {}

  /**
   * Copies the object each `-c` command of suggestion `id`'s passed screen wrote (its `-o`) out of
   * the workspace; a command that is not a plain compile to one object keeps nothing, and its unit
   * is compiled again.
   */
  async keep(id: string, commands: readonly RecordedCompile[], workspaceRoot: string): Promise<void> {
    if (!this.o.reusable()) return;
    const kept: StashedObject[] = [];
    for (const c of commands) {
      const at = c.args.indexOf('-o');
      if (!c.args.includes('-c') || at < 0 || c.args.indexOf('-o', at + 1) >= 0) continue;
      const rel = relative(this.o.projectRoot, resolve(c.cwd, c.args[at + 1] as string));
      if (leavesRoot(rel)) continue;
      const from = join(this.o.dir, id, rel);
      await mkdir(dirname(from), { recursive: true });
      await copyFile(join(workspaceRoot, rel), from);
      kept.push({ rel, from });
    }
    this.kept.set(id, kept);
  }

  /** The objects kept for these suggestions. */
  objectsOf(ids: readonly string[]): StashedObject[] {
    return ids.flatMap((id) => this.kept.get(id) ?? []);
  }
}
