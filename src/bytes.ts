// Source and patch text as strings that keep every byte. Older HPC codes carry Latin-1 comments
// (`é` as the single byte E9) that are not UTF-8; decoding them the usual way turns each into
// U+FFFD, and the written patch then no longer matches the file GNU patch sees. Here valid UTF-8
// decodes as usual and every byte that is not part of a valid sequence becomes the lone surrogate
// U+DC80–U+DCFF (Python's "surrogateescape"). No valid UTF-8 decodes to those, so the mapping is
// one to one: equal strings are equal bytes, and encoding gives back the original bytes exactly.
import { isUtf8 } from 'node:buffer';

const ESCAPE_BASE = 0xdc00;
/** A lone low surrogate in the escape range: one after a high surrogate is half of a real character. */
const ESCAPED = /(?<![\ud800-\udbff])[\udc80-\udcff]/;

export function decodeBytes(bytes: Uint8Array): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isUtf8(buffer)) return buffer.toString('utf8');
  const parts: string[] = [];
  let start = 0;
  let i = 0;
  while (i < buffer.length) {
    const length = validSequenceLength(buffer, i);
    if (length > 0) {
      i += length;
      continue;
    }
    if (start < i) parts.push(buffer.toString('utf8', start, i));
    parts.push(String.fromCharCode(ESCAPE_BASE + buffer[i]!));
    i += 1;
    start = i;
  }
  if (start < buffer.length) parts.push(buffer.toString('utf8', start));
  return parts.join('');
}

export function encodeText(text: string): Buffer {
  if (!ESCAPED.test(text)) return Buffer.from(text, 'utf8');
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0xdc80 || code > 0xdcff || (i > 0 && isHighSurrogate(text.charCodeAt(i - 1)))) continue;
    if (start < i) parts.push(Buffer.from(text.slice(start, i), 'utf8'));
    parts.push(Buffer.of(code - ESCAPE_BASE));
    start = i + 1;
  }
  if (start < text.length) parts.push(Buffer.from(text.slice(start), 'utf8'));
  return Buffer.concat(parts);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Length of the well-formed UTF-8 sequence at `i` (RFC 3629: no overlongs, no surrogates), or 0. */
function validSequenceLength(b: Buffer, i: number): number {
  const first = b[i]!;
  if (first < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < b.length && b[i + k]! >= lo && b[i + k]! <= hi;
  if (first >= 0xc2 && first <= 0xdf) return cont(1) ? 2 : 0;
  if (first === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if (first === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (first >= 0xe1 && first <= 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (first === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (first >= 0xf1 && first <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (first === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}
