// Discovery: the build pool, the OpenMP probe beside the first builds, every considered suggestion
// built on its own (or its build taken over by --resume) → the suggestions that fail.
import { BuildPool, discover, placeProbe, probeRefusal, runOpenmpProbe } from '../build/index.js';
import { RefusedError } from '../errors.js';
import { faultPoint } from '../fault.js';
import type { BuildResult } from '../formats/types.js';
import type { Preflight } from './preflight.js';
import type { RunContext } from './session.js';
import type { Failing, RunTally } from './tally.js';

export interface Discovery {
  pool: BuildPool;
  failing: Failing[];
}

export async function discoveryStage(
  context: RunContext,
  pre: Preflight,
  tally: RunTally,
  o: { reused: ReadonlyMap<string, BuildResult> | undefined; repairedEarlier: Set<string>; defer: (cleanup: () => Promise<void>) => void },
): Promise<Discovery> {
  const { options, emit, interrupt, launcher } = context;
  const { dp, considered } = pre;
  await launcher.preflight({ scratchDir: context.scratchDir, workDir: options.workDir, signal: interrupt.signal });
  const pool = await BuildPool.create({
    dp,
    scratchDir: context.scratchDir,
    jobs: options.jobs,
    threads: options.threads,
    timeoutMs: options.buildTimeoutS * 1000,
    signal: interrupt.signal,
    emit,
    exclude: options.exclude,
    launcher,
  });
  o.defer(() => pool.dispose());
  tally.placement = () => pool.workspacePlacement;
  // The probe is queued first and runs beside the first discovery builds; when it refuses,
  // disposing the pool cancels those, and their rejection is expected. With nothing to build
  // there is nothing the probe could protect. A resumed run probes again: the probe is one build.
  const toBuild = considered.some((s) => s.files.length > 0);
  const probing = toBuild ? runOpenmpProbe({ dp, placement: await placeProbe(considered), pool, emit }) : Promise.resolve(null);
  const discovering = discover({
    dp,
    considered,
    settled: new Set(tally.finishedRecords().keys()),
    pool,
    emit,
    reused: o.reused,
    onBuilt: (id, build) => tally.noteBuild(id, build),
  });
  discovering.catch(() => undefined);
  const probe = await probing;
  if (probe?.status === 'compiled') throw new RefusedError(probeRefusal(dp, probe));
  const discovery = await discovering;
  interrupt.check();
  faultPoint('pipeline.after-discovery');
  return { pool, failing: await tally.recordDiscovery(discovery.builds, o.repairedEarlier) };
}
