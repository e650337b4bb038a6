// ThreadSanitizer's report text as clang 14's runtime writes it (recorded from a real run of a loop
// with an unguarded `sum +=` at 2 threads, and of a global histogram), read into racing pairs.
import { describe, expect, it } from 'vitest';
import { parseTsanLog } from '../../src/repair/checks/tsan.js';
import { sectionItems, variableAt } from '../../src/repair/checks/races.js';
import { versionedNewestFirst } from '../../src/build/bare-clang.js';
import { racePackages } from '../../src/repair/checks/race-compiler.js';
import { racingHunk } from '../../src/report/races.js';

const STACK_RACE = `==================
WARNING: ThreadSanitizer: data race (pid=22699)
  Write of size 8 at 0x7ffd78e32f48 by thread T1:
    #0 .omp_outlined._debug__ /tmp/racetest/r.c:4:30 (r+0xd02bf) (BuildId: 5c2654b8c3f41adb6a7cb206d832a719ad1e2035)
    #1 .omp_outlined. /tmp/racetest/r.c:3:1 (r+0xd02bf)
    #2 __kmp_invoke_microtask <null> (libomp.so.5+0xd55a2) (BuildId: e9e0c9f73b23c8084edb4e0729bf87b9b7e3b563)
    #3 main /tmp/racetest/r.c:3:1 (r+0xd017f) (BuildId: 5c2654b8c3f41adb6a7cb206d832a719ad1e2035)

  Previous read of size 8 at 0x7ffd78e32f48 by main thread:
    #0 .omp_outlined._debug__ /tmp/racetest/r.c:4:26 (r+0xd02bf) (BuildId: 5c2654b8c3f41adb6a7cb206d832a719ad1e2035)
    #1 .omp_outlined. /tmp/racetest/r.c:3:1 (r+0xd02bf)

  Location is stack of main thread.

  Location is global '??' at 0x7ffd78e28000 ([stack]+0xaf48)

  Thread T1 (tid=22702, running) created by main thread at:
    #0 pthread_create <null> (r+0x513dd) (BuildId: 5c2654b8c3f41adb6a7cb206d832a719ad1e2035)
    #1 <null> <null> (libomp.so.5+0xaee17) (BuildId: e9e0c9f73b23c8084edb4e0729bf87b9b7e3b563)

SUMMARY: ThreadSanitizer: data race /tmp/racetest/r.c:4:30 in .omp_outlined._debug__
==================
==================
WARNING: ThreadSanitizer: data race (pid=18990)
  Write of size 4 at 0x556c634cb0e0 by thread T1:
    #0 .omp_outlined._debug__ /tmp/racetest/h.c:10:24 (h+0xd03a9)

  Previous write of size 4 at 0x556c634cb0e0 by main thread:
    #0 .omp_outlined._debug__ /tmp/racetest/h.c:10:24 (h+0xd03a9)

  Location is global 'hist' of size 16 at 0x556c634cb0e0 (h+0x147a0e0)

SUMMARY: ThreadSanitizer: data race /tmp/racetest/h.c:10:24 in .omp_outlined._debug__
==================
==================
WARNING: ThreadSanitizer: thread leak (pid=1)
  Thread T1 (tid=2, finished) created by main thread at:
    #0 pthread_create <null> (r+0x513dd)
==================
ThreadSanitizer: reported 3 warnings
`;

describe('parseTsanLog', () => {
  it('reads both accesses of each data race with kind, size and stack, and the global TSan names; other warnings are not races', () => {
    const races = parseTsanLog(STACK_RACE);
    expect(races).toHaveLength(2);
    expect(races[0]).toMatchObject({
      first: {
        kind: 'write',
        size: 8,
        frames: [
          { function: '.omp_outlined._debug__', file: '/tmp/racetest/r.c', line: 4, column: 30 },
          { line: 3, column: 1 },
          { function: '__kmp_invoke_microtask', file: null, line: null },
          { function: 'main' },
        ],
      },
      previous: { kind: 'read', size: 8, frames: [{ line: 4, column: 26 }, { line: 3 }] },
      variable: null,
    });
    expect(races[1]).toMatchObject({
      first: { kind: 'write', size: 4 },
      previous: { kind: 'write' },
      variable: 'hist',
    });
  });
});

describe('variableAt', () => {
  it('names the identifier at the column, or the one the operator at the column writes', () => {
    expect(variableAt('for(int i=0;i<10000;i++) sum += a[i];', 30)).toBe('sum');
    expect(variableAt('for(int i=0;i<10000;i++) sum += a[i];', 26)).toBe('sum');
    expect(variableAt('        t = scale * 2.0;', 11)).toBe('t');
    expect(variableAt('        hist[v[i] % 4] += 1;', 24)).toBe('hist');
    expect(variableAt('        x = 1;', null)).toBeNull();
  });
});

describe('array-section reduction items of a directive line', () => {
  it('names each section by its base, leaving whole-array and scalar items out', () => {
    expect(
      sectionItems('    #pragma omp parallel for reduction(+:hist[:4], sum) reduction(max:m[0:n][0:2]) shared(v)'),
    ).toEqual(
      new Map([
        ['hist', 'hist[:4]'],
        ['m', 'm[0:n][0:2]'],
      ]),
    );
    expect(sectionItems('    #pragma omp parallel for reduction(+:hist) shared(v)')).toEqual(new Map());
    expect(sectionItems('    hist[v[i] % 4] += 1; // reduction(+:hist[:4])')).toEqual(new Map());
  });
});

describe('the race compiler', () => {
  it('orders clang-N by number, newest first, and names the packages of a version', () => {
    expect(
      versionedNewestFirst('clang', ['clang', 'clang-9', 'clang-19', 'clang-14', 'clang++-22', 'clang-format-19']),
    ).toEqual(['clang-19', 'clang-14', 'clang-9']);
    expect(racePackages(14)).toBe('clang-14 libclang-rt-14-dev libomp-14-dev');
    expect(racePackages(null)).toBe('clang-19 libclang-rt-19-dev libomp-19-dev');
  });
});

describe('the hunk that added a racing pair', () => {
  const patch = [
    '--- /p/src/main.c\t2026-11-30',
    '+++ /p/src/main.c.discopop_patch_generator.temp\t2026-11-30',
    '@@ -2,3 +2,4 @@',
    ' int a;',
    '+#pragma omp parallel for',
    ' for (;;) {}',
    ' int b;',
    '@@ -20,3 +21,4 @@',
    ' x = 1;',
    '+#pragma omp parallel for shared(a,t)',
    ' for (i = 0; i < n; i++) {',
    '     t = 2;',
    '',
  ].join('\n');
  const access = (line: number) => ({
    kind: 'write' as const,
    size: 8,
    location: `src/main.c:${line}:5`,
    function: 'main',
  });
  const report = (line: number) => ({
    first: access(line),
    previous: access(line),
    variable: 't',
    in_patch: true,
    lines: [`src/main.c:${line}: t = 2;`],
    clang_fault: null,
  });

  it('is the hunk whose new side holds an access, with the file headers', () => {
    const hunk = racingHunk(report(23), new Map([['1', patch]]));
    expect(hunk).toContain('+#pragma omp parallel for shared(a,t)');
    expect(hunk).not.toContain('+#pragma omp parallel for\n');
    expect(hunk?.startsWith('--- /p/src/main.c')).toBe(true);
  });

  it("is the file's first adding hunk when no hunk holds the accesses, and null for another file", () => {
    expect(racingHunk(report(40), new Map([['1', patch]]))).toContain('@@ -2,3 +2,4 @@');
    expect(
      racingHunk(
        {
          ...report(23),
          first: { ...access(23), location: 'src/other.c:23:5' },
          previous: { ...access(23), location: 'src/other.c:23:5' },
        },
        new Map([['1', patch]]),
      ),
    ).toBeNull();
  });
});
