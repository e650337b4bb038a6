// ThreadSanitizer's report text as clang 14's runtime writes it (recorded from a real run of a loop
// with an unguarded `sum +=` at 2 threads, and of a global histogram), read into racing pairs.
import { describe, expect, it } from 'vitest';
import { parseTsanLog } from '../../src/repair/checks/tsan.js';
import { variableAt } from '../../src/repair/checks/races.js';

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
