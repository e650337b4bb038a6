// The doubled-prefix slip of real models (`--` or `+-` before a context or added line) is undone
// where the file or the line's shape shows it was meant, and a diff that means what it says is left alone.
import { describe, expect, it } from 'vitest';
import { parsePatches } from '../../src/patch/parse.js';
import { trimmedLines, undoubledPrefixes } from '../../src/patch/slips.js';

const FILE = trimmedLines(
  ['    int i;', '    --count;', '    for (i = 0; i < n; i++) {', '        x[i] = -y[i];', '    }'].join('\n'),
);

function read(body: string[]) {
  const [patch] = parsePatches(['--- a/k.c', '+++ b/k.c', '@@ -1,3 +1,4 @@', ...body].join('\n')).patches;
  return undoubledPrefixes(patch!, FILE).hunks[0]!.lines;
}

describe('undoubledPrefixes', () => {
  it('reads "--<line>" as context when the file has <line>, and "+-" before indentation or "#" as an added line', () => {
    expect(read(['     int i;', '+-    #pragma omp parallel for', '--    for (i = 0; i < n; i++) {'])).toEqual([
      { kind: 'context', text: '    int i;' },
      { kind: 'add', text: '    #pragma omp parallel for' },
      { kind: 'context', text: '    for (i = 0; i < n; i++) {' },
    ]);
  });

  it('leaves a diff that means what it says: a removed line the file has, an added decrement, a removed line the file lacks either way', () => {
    const lines = ['-    --count;', '+--count;', '--    while (1) {'];
    expect(read(lines)).toEqual([
      { kind: 'remove', text: '    --count;' },
      { kind: 'add', text: '--count;' },
      { kind: 'remove', text: '-    while (1) {' },
    ]);
  });
});
