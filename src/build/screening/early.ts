// Screens that start while the reference build still runs. The compiler wrappers log each call the
// moment it is made (compiler-record.ts), so a suggestion whose changed units have all been
// compiled by the reference build has its recorded commands; its screen then runs in a workspace of
// the user's tree alone, on a core the serial compile.sh leaves idle (queue.ts). Its result stands
// only where it is that of a screen after the reference build: the commands are the ones the whole
// build recorded for its units, and the reference build wrote nothing a compiler reads (no
// generated header the user's tree lacks). Otherwise the suggestion is screened again as usual.
import type { BuildResult, DotDiscopop } from '../../formats/types.js';
import type { RecordedCompile } from '../compiler-record.js';
import type { BuildRequest } from '../queue.js';
import { commandKey, screenPlan, type ToBuild } from './screen.js';

/** What early screens need from the build pool. */
export interface EarlyScreeningPool {
  onRecordedCompiles(listener: (compiles: readonly RecordedCompile[]) => void): void;
  queueEarly(request: BuildRequest): Promise<BuildResult | null>;
  earlyBuildsExact(): Promise<boolean>;
}

interface EarlyScreen {
  commands: readonly RecordedCompile[];
  build: BuildResult;
}

export class EarlyScreens {
  private readonly started = new Map<string, Promise<EarlyScreen | null>>();
  private readonly compiles: RecordedCompile[] = [];
  /** By project-relative path: the suggestions that patch it. */
  private readonly byFile = new Map<string, ToBuild[]>();

  constructor(
    private readonly o: {
      dp: Pick<DotDiscopop, 'files'>;
      pool: EarlyScreeningPool;
      toBuild: readonly ToBuild[];
      request: (s: ToBuild, commands: readonly RecordedCompile[]) => BuildRequest;
    },
  ) {
    for (const s of o.toBuild) {
      for (const fileId of s.patchSet.keys()) {
        const relPath = o.dp.files.get(fileId)?.relPath;
        if (relPath !== undefined) this.byFile.set(relPath, [...(this.byFile.get(relPath) ?? []), s]);
      }
    }
    o.pool.onRecordedCompiles((compiles) => this.recorded(compiles));
  }

  /** The early screen of `s` when it ran with `commands` and stands; else null. */
  async result(s: ToBuild, commands: readonly RecordedCompile[]): Promise<BuildResult | null> {
    const early = await this.started.get(s.id);
    if (!early || !(await this.o.pool.earlyBuildsExact())) return null;
    const same = JSON.stringify(early.commands.map(commandKey)) === JSON.stringify(commands.map(commandKey));
    return same ? early.build : null;
  }

  private recorded(compiles: readonly RecordedCompile[]): void {
    this.compiles.push(...compiles);
    const touched = new Set(compiles.flatMap((c) => c.operands.flatMap((rel) => this.byFile.get(rel) ?? [])));
    const recorded = { ok: true as const, compiles: this.compiles };
    for (const s of touched) {
      if (this.started.has(s.id)) continue;
      const plan = screenPlan(this.o.dp, recorded, s.patchSet);
      if (!plan.ok) continue;
      const { commands } = plan;
      const screening = this.o.pool.queueEarly(this.o.request(s, commands));
      // An early screen that could not run (the pool was disposed) leaves the suggestion to the usual screen.
      this.started.set(
        s.id,
        screening.then(
          (build) => build && { commands, build },
          () => null,
        ),
      );
    }
  }
}
