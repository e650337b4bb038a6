// The program of formats.md §2.1 and the patch DiscoPoP's generator wrote for its reduction loop.

export const MAIN_C = [
  '#include <stdio.h>',
  '#define N 1000',
  '',
  'int main(void) {',
  '    double a[N], b[N], sum = 0.0;',
  '    int i;',
  '    for (i = 0; i < N; i++) {',
  '        a[i] = i * 0.5;',
  '        b[i] = i * 2.0;',
  '    }',
  '    for (i = 0; i < N; i++) {',
  '        sum += a[i] * b[i];',
  '    }',
  '    printf("%f\\n", sum);',
  '    return 0;',
  '}',
  '',
].join('\n');

export const REDUCTION_PRAGMA = '    #pragma omp parallel for private(i) shared(a,b) reduction(+:sum) ';

/** formats.md §2.1, byte for byte. */
export const GENERATED_21 = [
  '--- /home/dev/demo/src/main.c\t2026-11-30 14:20:37.315505892 +0000',
  '+++ /home/dev/demo/src/main.c.discopop_patch_generator.temp\t2026-11-30 14:20:38.094634531 +0000',
  '@@ -8,6 +8,7 @@',
  '         a[i] = i * 0.5;',
  '         b[i] = i * 2.0;',
  '     }',
  `+${REDUCTION_PRAGMA}`,
  '     for (i = 0; i < N; i++) {',
  '         sum += a[i] * b[i];',
  '     }',
  '',
].join('\n');

export function insertLine(source: string, before: number, line: string): string {
  const lines = source.split('\n');
  lines.splice(before - 1, 0, line);
  return lines.join('\n');
}

/** MAIN_C with the generated reduction pragma above line 11. */
export const MAIN_C_PATCHED = insertLine(MAIN_C, 11, REDUCTION_PRAGMA);
