// Concurrent repairs (--agent-jobs): up to `jobs` suggestions are repaired at once, started in the
// considered order. What their outcomes lead to (write-back, the results record) is settled one
// at a time in completion order, so write-back stays journaled and serial whatever the overlap.
//
// --max-repairs stays exact without cancelling anything: a suggestion only starts while the
// repairs already made plus the repairs in flight stay below the limit, so even if every one in
// flight succeeds the limit is not passed (and no call is paid for a repair that would be thrown
// away). With a small --max-repairs fewer suggestions run at once; --agent-jobs 1 is the order of
// a serial run.

export interface ScheduleOptions<T, O extends { status: string }> {
  items: readonly T[];
  jobs: number;
  /** 0 = no limit. */
  maxRepairs: number;
  /** An interrupt: nothing new starts, and outcomes that arrive after it are not settled. */
  signal: AbortSignal;
  repair(item: T, index: number): Promise<O>;
  /** Settles one outcome (write-back, record); never runs twice at once. */
  settle(item: T, outcome: O): Promise<void>;
  /** Once true, nothing more starts (a write-back that every later one would fail as well). */
  halted?: () => boolean;
  /** A suggestion that never started because --max-repairs was reached or the run halted. */
  skip(item: T): void | Promise<void>;
}

export async function repairConcurrently<T, O extends { status: string }>(o: ScheduleOptions<T, O>): Promise<void> {
  const jobs = Math.max(1, o.jobs);
  let next = 0;
  let repaired = 0;
  let running = 0;
  // Set by the first repair or settle that throws (an interrupted build, an I/O fault, a bug).
  const failed: { error?: unknown; happened: boolean } = { happened: false };
  let settling: Promise<void> = Promise.resolve();
  const tasks = new Set<Promise<void>>();
  let wakeUp: (() => void) | null = null;

  const limitReached = () => o.maxRepairs > 0 && repaired >= o.maxRepairs;
  const mayStart = () => running < jobs && (o.maxRepairs === 0 || repaired + running < o.maxRepairs);

  const start = (index: number) => {
    const item = o.items[index] as T;
    running += 1;
    const task = (async () => {
      try {
        const outcome = await o.repair(item, index);
        // Settled in completion order, one at a time; an interrupt drops what has not been settled.
        const settled = settling.then(async () => {
          if (failed.happened || o.signal.aborted) return;
          await o.settle(item, outcome);
          if (outcome.status === 'repaired') repaired += 1;
        });
        settling = settled.catch(() => undefined);
        await settled;
      } catch (error) {
        if (!failed.happened) Object.assign(failed, { happened: true, error });
      } finally {
        running -= 1;
        wakeUp?.();
      }
    })();
    tasks.add(task);
    void task.then(() => tasks.delete(task));
  };

  while (next < o.items.length && !failed.happened && !o.signal.aborted) {
    if (limitReached() || o.halted?.()) break;
    if (mayStart()) {
      start(next);
      next += 1;
      continue;
    }
    await new Promise<void>((resolve) => {
      wakeUp = resolve;
    });
    wakeUp = null;
  }
  await Promise.all([...tasks]);
  if (failed.happened) throw failed.error;
  if (o.signal.aborted) return;
  // Once the limit is reached (or the run halted), everything that did not start is skipped, in order.
  for (; next < o.items.length; next += 1) await o.skip(o.items[next] as T);
}
