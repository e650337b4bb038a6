// Check 7 compares what a candidate's build prints with what the reference build printed. Two runs
// of the same reference program already differ in places (run times, dates, addresses): those
// lines are the noise floor and are never compared. Elsewhere text and integers must match
// exactly and other numbers within a relative tolerance, because a reordered floating-point sum
// (a reduction) legitimately changes the last digits. Pure: no I/O.

/** The reference's output and which of its lines are noise. */
export interface NoiseFloor {
  lines: string[];
  /** Indexes (from 0) of lines never compared. */
  noisy: ReadonlySet<number>;
  /** The two reference runs printed different numbers of lines: lines past the shorter one are noise too. */
  lineCountVaries: boolean;
}

export type Comparison = { same: true } | { same: false; difference: string };

/** A clock time or a calendar date: it changes between any two runs, even when two runs fall within one second. */
const TIMESTAMP =
  /(?<!\d)\d{1,2}:\d{2}:\d{2}(?!\d)|(?<!\d)\d{4}-\d{2}-\d{2}(?!\d)|\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun)\b.*\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b/;

/** A number as printed: sign, digits, fraction, exponent; also nan and inf as printf spells them. */
const NUMBER = /[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:nan|inf(?:inity)?)\b/gi;

/** Longest excerpt of a line quoted in a difference: the follow-up turn must stay readable. */
const QUOTE_CHARS = 160;

export function outputLines(text: string): string[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** The noise floor of two runs of the reference: every line where they differ, and every timestamped line. */
export function noiseFloor(first: string, second: string): NoiseFloor {
  const a = outputLines(first);
  const b = outputLines(second);
  const noisy = new Set<number>();
  for (let i = 0; i < a.length; i++) {
    const line = a[i] as string;
    if (i >= b.length || line !== b[i] || TIMESTAMP.test(line)) noisy.add(i);
  }
  return { lines: a, noisy, lineCountVaries: a.length !== b.length };
}

/** Nothing of the reference output is left to compare, although it printed something. */
export function differsEverywhere(floor: NoiseFloor): boolean {
  return floor.lines.length > 0 && floor.noisy.size === floor.lines.length;
}

/** Compares one run's output with the reference outside its noise floor. */
export function compareOutput(floor: NoiseFloor, output: string, tolerance: number): Comparison {
  const got = outputLines(output);
  const expected = floor.lines;
  const common = Math.min(got.length, expected.length);
  for (let i = 0; i < common; i++) {
    if (floor.noisy.has(i)) continue;
    const wanted = expected[i] as string;
    const line = got[i] as string;
    if (!linesMatch(wanted, line, tolerance))
      return { same: false, difference: `line ${i + 1}: ${quote(wanted)} expected, ${quote(line)} got` };
  }
  if (got.length === expected.length || floor.lineCountVaries) return { same: true };
  if (got.length < expected.length) {
    return {
      same: false,
      difference: `the output ends after ${got.length} line${got.length === 1 ? '' : 's'}; line ${common + 1} ${quote(expected[common] as string)} expected`,
    };
  }
  return {
    same: false,
    difference: `${got.length - expected.length} line${got.length - expected.length === 1 ? '' : 's'} more than expected, from line ${common + 1} ${quote(got[common] as string)}`,
  };
}

function linesMatch(expected: string, got: string, tolerance: number): boolean {
  if (expected === got) return true;
  const a = tokens(expected);
  const b = tokens(got);
  if (a.text.length !== b.text.length || a.numbers.length !== b.numbers.length) return false;
  if (a.text.some((text, i) => text !== b.text[i])) return false;
  return a.numbers.every((number, i) => numbersMatch(number, b.numbers[i] as string, tolerance));
}

/**
 * A line as its text between numbers and its numbers. Runs of blanks count as one: a printf
 * width pads a number by how many digits it has, which is not a difference in what it says.
 */
function tokens(line: string): { text: string[]; numbers: string[] } {
  const numbers = [...line.matchAll(NUMBER)].map((match) => match[0]);
  const text = line.split(NUMBER).map((part) => part.replace(/\s+/g, ' ').trim());
  return { text, numbers };
}

function numbersMatch(expected: string, got: string, tolerance: number): boolean {
  if (isInteger(expected) && isInteger(got)) return BigInt(expected) === BigInt(got);
  const a = numberValue(expected);
  const b = numberValue(got);
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  if (a === b) return true;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  return Math.abs(a - b) <= tolerance * Math.max(Math.abs(a), Math.abs(b));
}

function numberValue(number: string): number {
  const word = /^([+-]?)(nan|inf)/i.exec(number);
  if (!word) return Number(number);
  if (word[2]!.toLowerCase() === 'nan') return Number.NaN;
  return word[1] === '-' ? -Infinity : Infinity;
}

function isInteger(number: string): boolean {
  return /^[+-]?\d+$/.test(number);
}

function quote(line: string): string {
  const shown = line.length > QUOTE_CHARS ? `${line.slice(0, QUOTE_CHARS)}…` : line;
  return `\`${shown}\``;
}
