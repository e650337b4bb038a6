// The hotspot filter as DiscoPoP's autotuner classifies: LOOP regions only, no data means every
// suggestion is YES, -s ids override and must name folders, and a malformed Hotspots.json is named.
import { describe, expect, it } from 'vitest';
import { classifyHotspot, readDotDiscopop, selectSuggestions } from '../../src/discopop/index.js';
import type { LoopHotspot } from '../../src/discopop/hotspots.js';
import { UsageError } from '../../src/errors.js';
import type { DotDiscopop, Hotness, Suggestion } from '../../src/formats/types.js';
import { minimalProject, doAllEntry } from './dot-tree.js';

const loop = (hotness: Hotness, fileId: string, line: number): LoopHotspot => ({ fileId, line, hotness });
const pattern = { fileId: '1', startLine: 4, endLine: 9 };

describe('classifyHotspot (DiscoPoP autotuner rules)', () => {
  it.each<[string, typeof pattern | null, LoopHotspot[], Hotness | null]>([
    ['no hotspot data: every suggestion is YES', pattern, [], 'YES'],
    ['no hotspot data, no patterns.json entry: still YES', null, [], 'YES'],
    ['hotspot data but no patterns.json entry: unclassified', null, [loop('YES', '1', 5)], null],
    ['YES loop inside the range', pattern, [loop('YES', '1', 5)], 'YES'],
    ['YES wins over NO', pattern, [loop('NO', '1', 5), loop('YES', '1', 6)], 'YES'],
    ['NO wins over MAYBE', pattern, [loop('MAYBE', '1', 5), loop('NO', '1', 6)], 'NO'],
    ['MAYBE on the start line counts', pattern, [loop('MAYBE', '1', 4)], 'MAYBE'],
    ['MAYBE on the end line counts', pattern, [loop('MAYBE', '1', 9)], 'MAYBE'],
    ['a YES loop just outside does not count', pattern, [loop('YES', '1', 3), loop('YES', '1', 10)], null],
    ['a YES loop of another file does not count', pattern, [loop('YES', '2', 5)], null],
    ['only the loops inside decide', pattern, [loop('YES', '1', 3), loop('MAYBE', '1', 8)], 'MAYBE'],
  ])('%s', (_case, p, loops, expected) => {
    expect(classifyHotspot(p, loops)).toBe(expected);
  });
});

describe('selectSuggestions', () => {
  const dp = {
    dotDir: '/p/.discopop',
    suggestions: [suggestion('1', 'YES'), suggestion('2', 'MAYBE'), suggestion('3', 'NO'), suggestion('4', null)],
  } as DotDiscopop;
  const ids = (selected: Suggestion[]) => selected.map((s) => s.id);

  it.each<[string, { hotspotTypes: Hotness[]; suggestions?: string[] }, string[]]>([
    ['default yes,maybe', { hotspotTypes: ['YES', 'MAYBE'] }, ['1', '2']],
    ['only NO', { hotspotTypes: ['NO'] }, ['3']],
    ['every type still leaves out the unclassified', { hotspotTypes: ['YES', 'NO', 'MAYBE'] }, ['1', '2', '3']],
    [
      '-s overrides the filter and may name unclassified ones',
      { hotspotTypes: ['YES'], suggestions: ['4', '3'] },
      ['3', '4'],
    ],
  ])('%s', (_case, o, expected) => {
    expect(ids(selectSuggestions(dp, o))).toEqual(expected);
  });

  it('lists -s ids that have no folder', () => {
    const select = () => selectSuggestions(dp, { hotspotTypes: ['YES'], suggestions: ['2', '9', '12'] });
    expect(select).toThrow(UsageError);
    expect(select).toThrow('--suggestions: no folder 9, 12 under /p/.discopop/patch_generator/ (existing: 1, 2, 3, 4)');
  });
});

describe('Hotspots.json on disk', () => {
  const patterns = JSON.stringify({
    version: '5.0.2',
    patterns: {
      do_all: [doAllEntry(3, '1:4', '1:9'), doAllEntry(5, '1:20', '1:25')],
    },
  });
  const project = (regions: object[]) =>
    minimalProject({
      '.discopop/patch_generator/5/1.patch': '--- a\n+++ b\n',
      '.discopop/patch_generator/6/1.patch': '--- a\n+++ b\n',
      '.discopop/explorer/patterns.json': patterns,
      '.discopop/hotspot_detection/Hotspots.json': JSON.stringify({ code_regions: regions }),
    });

  it('ignores FUNCTION regions: with no LOOP region there is no hotspot data and all are YES', async () => {
    const { dot } = project([region('FUNCTION', 'NO', 5)]);
    const dp = await readDotDiscopop(dot, 'tiny');
    expect(dp.hasHotspotData).toBe(false);
    expect(dp.suggestions.map((s) => [s.id, s.hotspot])).toEqual([
      ['3', 'YES'],
      ['5', 'YES'],
      ['6', 'YES'],
    ]);
  });

  it('classifies by LOOP regions; a suggestion without a patterns.json entry is unclassified', async () => {
    const { dot } = project([region('FUNCTION', 'YES', 21), region('LOOP', 'MAYBE', 4), region('LOOP', 'NO', 40)]);
    const dp = await readDotDiscopop(dot, 'tiny');
    expect(dp.hasHotspotData).toBe(true);
    expect(dp.suggestions.map((s) => [s.id, s.hotspot])).toEqual([
      ['3', 'MAYBE'],
      ['5', null],
      ['6', null],
    ]);
  });

  it('names a region field of the wrong shape', async () => {
    const { dot } = project([{ ...region('LOOP', 'YES', 4), hotness: 'HOT' }]);
    await expect(readDotDiscopop(dot, 'tiny')).rejects.toThrow(
      `${dot}/hotspot_detection/Hotspots.json: code_regions[0].hotness: Invalid option: expected one of "YES"|"NO"|"MAYBE"`,
    );
  });
});

function suggestion(id: string, hotspot: Hotness | null): Suggestion {
  return { id, dir: `/p/.discopop/patch_generator/${id}`, files: [], pattern: null, hotspot };
}

function region(typ: 'LOOP' | 'FUNCTION', hotness: Hotness, lineNum: number) {
  return {
    csid: 1,
    typ,
    fid: 1,
    lineNum,
    name: typ === 'LOOP' ? '' : 'main',
    runtimes: [0.5],
    level: 0,
    hot: true,
    hotness,
  };
}
