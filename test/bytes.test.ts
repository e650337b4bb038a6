// Source and patch text keep every byte: decode then encode gives back the input exactly, for any
// bytes, and valid UTF-8 reads as the text it is.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeBytes, encodeText, hasRawBytes } from '../src/bytes.js';

describe('decodeBytes / encodeText', () => {
  it('valid UTF-8 decodes as usual and encodes as before', () => {
    const text = 'résumé ∑ 😀 \u{10080}\r\n';
    expect(decodeBytes(Buffer.from(text))).toBe(text);
    expect(encodeText(text).equals(Buffer.from(text))).toBe(true);
    expect(hasRawBytes(text)).toBe(false);
  });

  it('a Latin-1 byte survives instead of becoming U+FFFD', () => {
    const bytes = Buffer.from('/* r\xe9sum\xe9 */\n', 'latin1');
    const text = decodeBytes(bytes);
    expect(text).toBe('/* r\udce9sum\udce9 */\n');
    expect(hasRawBytes(text)).toBe(true);
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
