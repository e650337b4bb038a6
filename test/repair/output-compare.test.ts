// Check 7's output comparison: line splitting, the noise floor learned from two reference runs,
// and the first differing line named with what was expected and what came.
import { describe, expect, it } from 'vitest';
import { compareOutput, differsEverywhere, noiseFloor, outputLines } from '../../src/repair/output-compare.js';

const TOLERANCE = 1e-6;

function floorOf(text: string): ReturnType<typeof noiseFloor> {
  return noiseFloor(text, text);
}

describe('outputLines', () => {
  it('splits on newlines, drops one final empty line, reads CRLF as LF', () => {
    expect(outputLines('a\nb\n')).toEqual(['a', 'b']);
    expect(outputLines('a\r\nb')).toEqual(['a', 'b']);
    expect(outputLines('')).toEqual([]);
    expect(outputLines('\n\n')).toEqual(['', '']);
  });
});

describe('noise floor', () => {
  it('marks the lines where two reference runs differ, and keeps the others', () => {
    const floor = noiseFloor('sum 10\ntook 0.0123 s\nok\n', 'sum 10\ntook 0.0131 s\nok\n');
    expect([...floor.noisy]).toEqual([1]);
    expect(floor.lines).toEqual(['sum 10', 'took 0.0123 s', 'ok']);
    expect(floor.lineCountVaries).toBe(false);
  });

  it.each([['Wed Dec  2 01:12:44 UTC 2026'], ['started at 2026-12-02T01:12:44Z'], ['finished 23:59:59']])(
    'counts a time or date as noise even when both runs printed the same: %s',
    (line) => {
      const floor = noiseFloor(`result 3\n${line}\n`, `result 3\n${line}\n`);
      expect([...floor.noisy]).toEqual([1]);
    },
  );

  it('does not take version numbers or ratios for times', () => {
    expect(floorOf('gcc 12.2.0\nratio 3:4\n').noisy.size).toBe(0);
  });

  it('marks lines past the shorter run as noise and remembers that the line count varies', () => {
    const floor = noiseFloor('a\nb\nc\n', 'a\nb\n');
    expect([...floor.noisy]).toEqual([2]);
    expect(floor.lineCountVaries).toBe(true);
  });

  it('says when nothing is left to compare', () => {
    expect(differsEverywhere(noiseFloor('t=1\nt=2\n', 't=3\nt=4\n'))).toBe(true);
    expect(differsEverywhere(noiseFloor('t=1\nsum 5\n', 't=3\nsum 5\n'))).toBe(false);
    // A program that prints nothing is judged by its exit code alone.
    expect(differsEverywhere(noiseFloor('', ''))).toBe(false);
  });
});

describe('compareOutput', () => {
  it('accepts the same output', () => {
    expect(compareOutput(floorOf('sum = 4950\nmean 49.5\n'), 'sum = 4950\nmean 49.5\n', TOLERANCE)).toEqual({
      same: true,
    });
  });

  it('names the first differing line, expected and got, counting from 1', () => {
    const floor = floorOf('header\nresidual 4.9370e+03\nresidual 1.0000e+00\n');
    expect(compareOutput(floor, 'header\nresidual 4.9113e+03\nresidual 2.0000e+00\n', TOLERANCE)).toEqual({
      same: false,
      difference: 'line 2: `residual 4.9370e+03` expected, `residual 4.9113e+03` got',
    });
  });

  it('compares integers exactly', () => {
    expect(compareOutput(floorOf('count 1000000001\n'), 'count 1000000000\n', 0.5)).toMatchObject({ same: false });
    expect(compareOutput(floorOf('count 123456789012345678901\n'), 'count 123456789012345678902\n', 0.5)).toMatchObject(
      { same: false },
    );
  });

  it('compares other numbers within the relative tolerance', () => {
    const floor = floorOf('sum 1234.5678901\n');
    expect(compareOutput(floor, 'sum 1234.5678911\n', TOLERANCE)).toEqual({ same: true });
    expect(compareOutput(floor, 'sum 1234.5791234\n', TOLERANCE)).toMatchObject({ same: false });
    expect(compareOutput(floor, 'sum 1234.5791234\n', 1e-3)).toEqual({ same: true });
    expect(compareOutput(floorOf('x 1.5e-300\n'), 'x 1.5000001e-300\n', TOLERANCE)).toEqual({ same: true });
    expect(compareOutput(floorOf('x 0.0\n'), 'x -0.0\n', 0)).toEqual({ same: true });
    expect(compareOutput(floorOf('x 0.0\n'), 'x 1e-30\n', TOLERANCE)).toMatchObject({ same: false });
  });

  it('reads an integer printed as a float as the same number', () => {
    expect(compareOutput(floorOf('n 10\n'), 'n 10.0\n', TOLERANCE)).toEqual({ same: true });
  });

  it('compares nan and inf as printf spells them', () => {
    expect(compareOutput(floorOf('v nan\n'), 'v nan\n', TOLERANCE)).toEqual({ same: true });
    expect(compareOutput(floorOf('v nan\n'), 'v 1.0\n', TOLERANCE)).toMatchObject({ same: false });
    expect(compareOutput(floorOf('v inf\n'), 'v -inf\n', TOLERANCE)).toMatchObject({ same: false });
  });

  it('compares text exactly, but not the width of the blanks that pad a number', () => {
    expect(compareOutput(floorOf('a =     1.5 b\n'), 'a = 1.5000001 b\n', TOLERANCE)).toEqual({ same: true });
    expect(compareOutput(floorOf('ok 1\n'), 'OK 1\n', TOLERANCE)).toMatchObject({ same: false });
    expect(compareOutput(floorOf('a 1 2\n'), 'a 1\n', TOLERANCE)).toMatchObject({ same: false });
  });

  it('never compares the noisy lines', () => {
    const floor = noiseFloor('sum 10\ntook 0.0123 s\n', 'sum 10\ntook 0.0131 s\n');
    expect(compareOutput(floor, 'sum 10\ntook 2 ms, on 4 threads\n', TOLERANCE)).toEqual({ same: true });
    expect(compareOutput(floor, 'sum 11\ntook 0.0123 s\n', TOLERANCE)).toMatchObject({
      same: false,
      difference: expect.stringContaining('line 1:'),
    });
  });

  it('reports missing and extra lines', () => {
    const floor = floorOf('a\nb\nc\n');
    expect(compareOutput(floor, 'a\n', TOLERANCE)).toEqual({
      same: false,
      difference: 'the output ends after 1 line; line 2 `b` expected',
    });
    expect(compareOutput(floor, 'a\nb\nc\nd\ne\n', TOLERANCE)).toEqual({
      same: false,
      difference: '2 lines more than expected, from line 4 `d`',
    });
  });

  it('lets the line count vary when it varied between the reference runs', () => {
    const floor = noiseFloor('a\nb\nwarm-up 1\n', 'a\nb\n');
    expect(compareOutput(floor, 'a\nb\n', TOLERANCE)).toEqual({ same: true });
    expect(compareOutput(floor, 'a\nc\n', TOLERANCE)).toMatchObject({ same: false });
  });

  it('cuts a very long line in the difference', () => {
    const long = `x ${'7'.repeat(400)}`;
    const result = compareOutput(floorOf(`${long}\n`), `${long}8\n`, TOLERANCE);
    expect(result.same).toBe(false);
    if (!result.same) expect(result.difference.length).toBeLessThan(400);
  });
});
