// The order in which vitest hands test files to its two workers. On a fresh clone vitest has no
// timings of its own and starts the largest files first, so a short file that runs for a minute
// and a half (a fault-injection file is 34 lines) may start last and keep one worker busy while
// the other idles. The seconds each file took in a full run (test/durations.json) put the longest
// first; a file with no recorded time goes before all, since it may be long.
//
// DurationRecorder, a reporter of the full suite, writes each run's seconds to
// test-durations.json; `npm run test:durations` takes them into the recorded order (a run of a
// few files updates only those).
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BaseSequencer, type Reporter, type TestModule, type TestSpecification, type Vitest } from 'vitest/node';

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const recorded = JSON.parse(readFileSync(join(root, 'test', 'durations.json'), 'utf8')) as Record<string, number>;
    const seconds = (file: TestSpecification) => recorded[relative(root, file.moduleId)] ?? Number.MAX_VALUE;
    return [...files].sort((a, b) => seconds(b) - seconds(a));
  }
}

export class DurationRecorder implements Reporter {
  private root = '';

  onInit(vitest: Vitest): void {
    this.root = vitest.config.root;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const seconds = modules
      .map((module) => {
        const { collectDuration, duration } = module.diagnostic();
        return [relative(this.root, module.moduleId), Math.round((collectDuration + duration) / 100) / 10] as const;
      })
      .sort(([a], [b]) => (a < b ? -1 : 1));
    writeFileSync(join(this.root, 'test-durations.json'), `${JSON.stringify(Object.fromEntries(seconds), null, 2)}\n`);
  }
}
