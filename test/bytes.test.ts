// Source and patch text keep every byte: decode then encode gives back the input exactly, for any
// bytes, and valid UTF-8 reads as the text it is.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeBytes, encodeText } from '../src/bytes.js';

describe('decodeBytes / encodeText', () => {
  it('valid UTF-8 decodes as usual and encodes as before', () => {
    const text = 'résumé ∑ 😀 \u{10080}\r\n';
    expect(decodeBytes(Buffer.from(text))).toBe(text);
    expect(encodeText(text).equals(Buffer.from(text))).toBe(true);
  });

  it('a Latin-1 byte survives instead of becoming U+FFFD', () => {
    const bytes = Buffer.from('/* r\xe9sum\xe9 */\n', 'latin1');
    const text = decodeBytes(bytes);
    expect(text).toBe('/* r\udce9sum\udce9 */\n');
    expect(encodeText(text).equals(bytes)).toBe(true);
  });

  it('overlong forms, encoded surrogates and truncated sequences are raw bytes, not characters', () => {
    for (const hex of ['c0af', 'eda080', 'e282', 'f4908080', 'ff', '80']) {
      const bytes = Buffer.from(hex, 'hex');
      expect(encodeText(decodeBytes(bytes)).equals(bytes), hex).toBe(true);
      expect(decodeBytes(bytes)).not.toContain('\ufffd');
    }
  });

  it('any bytes round-trip exactly', () => {
    for (let i = 0; i < 200; i++) {
      const bytes = randomBytes(1 + (i % 64));
      expect(encodeText(decodeBytes(bytes)).equals(bytes)).toBe(true);
    }
  });
});

describe('an answer that shows a non-UTF-8 byte as U+FFFD', () => {
  it('still applies, and the file keeps its own byte', async () => {
    const { applyFilePatch, parsePatches } = await import('../src/patch/index.js');
    const source = decodeBytes(
      Buffer.from(
        'int f(int n) {\n    int i;\n    double sum = 0.0;\n    /* r\xe9sum\xe9 */\n    for (i = 0; i < n; i++) {\n        sum += i;\n    }\n    return sum;\n}\n',
        'latin1',
      ),
    );
    // What a model echoes from a prompt that carried the byte: the replacement character.
    const answer =
      '--- a/x.c\n+++ b/x.c\n@@ -3,4 +3,5 @@\n     double sum = 0.0;\n     /* r\ufffdsum\ufffd */\n+    #pragma omp parallel for reduction(+:sum)\n     for (i = 0; i < n; i++) {\n         sum += i;\n';
    const [patch] = parsePatches(answer).patches;
    const applied = applyFilePatch(source, patch!);
    expect(applied.ok).toBe(true);
    const bytes = encodeText(applied.ok ? applied.result! : '');
    expect(
      bytes.includes(Buffer.from('    /* r\xe9sum\xe9 */\n    #pragma omp parallel for reduction(+:sum)\n', 'latin1')),
    ).toBe(true);
  });
});
