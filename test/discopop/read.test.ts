// Reading a .discopop folder as DiscoPoP leaves it: file mapping, patch sets, derived parallel
// settings (never written), stray and whitespace-only patch files, CRLF, and every problem of a bad
// folder at once, one line each.
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDotDiscopop, refuseIfApplied } from '../../src/discopop/index.js';
import { RefusedError, UsageError } from '../../src/errors.js';
import { measureRunReference } from '../../src/repair/run-reference.js';
import { addFiles, minimalProject, writeTree, doAllEntry, PATCH_1 } from './dot-tree.js';

async function usageLines(promise: Promise<unknown>): Promise<string[]> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UsageError);
  return (error as UsageError).message.split('\n');
}

describe('readDotDiscopop', () => {
  it('reads a minimal folder: file mapping, patch set, derived parallel settings, no notices', async () => {
    const { root, dot } = minimalProject();
    const dp = await readDotDiscopop(dot, 'tiny');
    expect(dp.projectRoot).toBe(root);
    expect(dp.files.get('1')).toEqual({ id: '1', path: join(root, 'src/main.c'), relPath: 'src/main.c' });
    expect(dp.suggestions).toHaveLength(1);
    const [suggestion] = dp.suggestions;
    expect(suggestion).toMatchObject({ id: '3', pattern: null, hotspot: 'YES' });
    expect(suggestion?.files.map((f) => [f.fileId, f.source.relPath])).toEqual([['1', 'src/main.c']]);
    expect(suggestion?.files[0]?.text).toContain('#pragma omp parallel for');
    expect(dp.config).toMatchObject({
      name: 'tiny',
      compileScript: join(dot, 'project/configs/tiny/compile.sh'),
      settingsSource: 'seq_settings.json (derived)',
      // DiscoPoP adds a separating space only to non-empty flags.
      settings: { CC: 'gcc', CXX: 'g++', CFLAGS: '-O2 -fopenmp', CXXFLAGS: '-fopenmp' },
    });
    expect(dp.applied).toEqual([]);
    expect(dp.hasHotspotData).toBe(false);
    expect(dp.notices).toEqual([]);
  });

  it('never writes the derived par_settings.json', async () => {
    const { dot } = minimalProject();
    await readDotDiscopop(dot, 'tiny');
    expect(() => readFileSync(join(dot, 'project/configs/tiny/par_settings.json'))).toThrow(/ENOENT/);
  });

  it('prefers par_settings.json and passes extra keys through', async () => {
    const { dot } = minimalProject({
      '.discopop/project/configs/tiny/par_settings.json': '{"CC":"clang","CFLAGS":"-fopenmp=libomp","EXTRA":"1"}',
    });
    const dp = await readDotDiscopop(dot, 'tiny');
    expect(dp.config.settingsSource).toBe('par_settings.json');
    expect(dp.config.settings).toEqual({ CC: 'clang', CFLAGS: '-fopenmp=libomp', EXTRA: '1' });
  });

  it('reads a project whose seq_settings.json is broken beside a valid par_settings.json, and keeps the problem for --check-run', async () => {
    const { dot } = minimalProject({
      '.discopop/project/configs/tiny/par_settings.json': '{"CC":"gcc","CFLAGS":"-O2 -fopenmp"}',
      '.discopop/project/configs/tiny/seq_settings.json': '{"CC": gcc}',
    });
    const dp = await readDotDiscopop(dot, 'tiny');
    expect(dp.config.settings).toEqual({ CC: 'gcc', CFLAGS: '-O2 -fopenmp' });
    expect(dp.config.seqSettings).toBeUndefined();
    expect(dp.config.seqSettingsProblem).toMatch(/seq_settings\.json: whole file: expected JSON/);
    const refused = await measureRunReference({
      pool: {
        withSequentialProgram: () => Promise.reject(new Error('not built')),
        withReferenceProgram: () => Promise.reject(new Error('not built')),
      },
      config: dp.config,
      options: { runThreads: 2, runRepeats: 3, runTolerance: 1e-6, buildTimeoutS: 60 },
    });
    expect(refused).toEqual({
      ok: false,
      refusal: `--check-run: the sequential program cannot be built: ${dp.config.seqSettingsProblem}`,
    });
  });

  it('sorts suggestions and files numerically; empty folders and zero-byte patches have nothing to build', async () => {
    const { dot } = minimalProject({
      'src/util.c': 'int f(void) { return 1; }\n',
      '.discopop/FileMapping.txt': '1\t<root>/src/main.c\n2\t<root>/src/util.c\n10\t<root>/src/util.c\n',
      '.discopop/patch_generator/10/10.patch': '--- a\n+++ b\n',
      '.discopop/patch_generator/10/2.patch': '--- a\n+++ b\n',
      '.discopop/patch_generator/2/1.patch': '',
      '.discopop/patch_generator/7/': '',
      '.discopop/patch_generator/10/2.patch.orig': 'left behind by GNU patch',
    });
    const dp = await readDotDiscopop(dot, 'tiny');
    expect(dp.suggestions.map((s) => [s.id, s.files.map((f) => f.fileId)])).toEqual([
      ['2', []],
      ['3', ['1']],
      ['7', []],
      ['10', ['2', '10']],
    ]);
  });

  it('leaves out a .patch file FileMapping.txt does not know or that is not named after a file id, one notice each, as DiscoPoP does', async () => {
    const { dot } = minimalProject({
      '.discopop/patch_generator/3/99.patch': '--- a\n+++ b\n',
      '.discopop/patch_generator/3/x.patch': 'stray\n',
    });
    const dp = await readDotDiscopop(dot, 'tiny');
    const [suggestion] = dp.suggestions;
    expect(suggestion?.files.map((f) => f.fileId)).toEqual(['1']);
    expect(suggestion?.ignoredFiles).toEqual(['99.patch', 'x.patch']);
    expect(dp.notices).toEqual([
      `${dot}/patch_generator/3/99.patch: file id 99: not listed in FileMapping.txt; left out of suggestion 3's patch set`,
      `${dot}/patch_generator/3/x.patch: file name: not "<file id>.patch"; left out of suggestion 3's patch set`,
    ]);
  });

  it('reads a whitespace-only patch as no patch, as DiscoPoP drops it', async () => {
    const { dot } = minimalProject({ '.discopop/patch_generator/3/1.patch': ' \n\t\r\n' });
    const [suggestion] = (await readDotDiscopop(dot, 'tiny')).suggestions;
    expect(suggestion?.files).toEqual([]);
  });

  it.each<[string, Record<string, string>, string]>([
    [
      'a repeated file id',
      { '.discopop/FileMapping.txt': '1\t<root>/src/main.c\n1\t<root>/src/other.c\n' },
      'FileMapping.txt: line 2: expected each file id once; id 1 is already on line 1',
    ],
    [
      'a relative path',
      { '.discopop/FileMapping.txt': '1\t<root>/src/main.c\n2\tsrc/util.c\n' },
      'FileMapping.txt: line 2: expected an absolute path, got "src/util.c"',
    ],
    [
      'a patched source that no longer exists',
      {
        '.discopop/FileMapping.txt': '1\t<root>/src/main.c\n2\t<root>/src/gone.c\n',
        '.discopop/patch_generator/3/2.patch': 'x',
      },
      'patch_generator/3/2.patch: file id 2: expected the patched source <root>/src/gone.c to exist',
    ],
  ])('names %s', async (_case, files, expected) => {
    const { root, dot } = minimalProject(files);
    expect(await usageLines(readDotDiscopop(dot, 'tiny'))).toEqual([`${dot}/${expected.replace('<root>', root)}`]);
  });

  it('names a suggestion folder whose name cannot be a suggestion id', async () => {
    const { dot } = minimalProject({ '.discopop/patch_generator/3 old/1.patch': '' });
    expect(await usageLines(readDotDiscopop(dot, 'tiny'))).toEqual([
      `${dot}/patch_generator/3 old: folder name: expected a suggestion id (letters, digits, ".", "_" or "-"), as the patch generator names them`,
    ]);
  });

  it('accepts CRLF line ends and blank lines in FileMapping.txt', async () => {
    const { dot } = minimalProject({ '.discopop/FileMapping.txt': '1\t<root>/src/main.c\r\n\r\n' });
    expect((await readDotDiscopop(dot, 'tiny')).files.get('1')?.relPath).toBe('src/main.c');
  });

  it('reports every problem of the folder at once, one line each', async () => {
    const { dot } = minimalProject({
      '.discopop/FileMapping.txt': '1\t<root>/src/main.c\n2 <root>/src/util.c\n',
      '.discopop/explorer/patterns.json': JSON.stringify({
        version: '5.0.2',
        patterns: { do_all: [{ ...doAllEntry(3, '1:4', '1:9'), start_line: 4 }] },
      }),
      '.discopop/hotspot_detection/Hotspots.json': '{"code_regions": [',
      '.discopop/patch_applicator/applied_suggestions.json': '{"applied": [true]}',
      '.discopop/project/configs/tiny/compile.sh': null,
    });
    const lines = await usageLines(readDotDiscopop(dot, 'fast'));
    expect(lines).toHaveLength(5);
    expect(lines).toEqual(
      expect.arrayContaining([
        `${dot}/FileMapping.txt: line 2: expected "<file id><TAB><absolute path>"`,
        `${dot}/explorer/patterns.json: patterns.do_all[0].start_line: Invalid input: expected string, received number`,
        expect.stringMatching(/^.*\/hotspot_detection\/Hotspots\.json: whole file: expected JSON \(/),
        `${dot}/patch_applicator/applied_suggestions.json: applied[0]: expected a suggestion id, e.g. "3" or 3`,
        `${dot}/project/configs/fast: -c fast: expected an execution configuration folder (available: tiny)`,
      ]),
    );
  });

  it('reports a configuration without compile.sh or settings', async () => {
    const { dot } = minimalProject({ '.discopop/project/configs/other/run.sh': '' });
    expect(await usageLines(readDotDiscopop(dot, 'other'))).toEqual([
      `${dot}/project/configs/other/compile.sh: whole file: expected the script that builds the project; it is missing`,
      `${dot}/project/configs/other/par_settings.json: whole file: expected par_settings.json or seq_settings.json; neither exists`,
    ]);
  });

  it('refuses settings values that cannot become environment variables', async () => {
    const { dot } = minimalProject({ '.discopop/project/configs/tiny/par_settings.json': '{"CC":"gcc","THREADS":4}' });
    expect(await usageLines(readDotDiscopop(dot, 'tiny'))).toEqual([
      `${dot}/project/configs/tiny/par_settings.json: THREADS: expected a string (settings become environment variables)`,
    ]);
  });

  it('says when it is not a .discopop folder, and points at .discopop from the project root', async () => {
    const { root } = minimalProject();
    expect(await usageLines(readDotDiscopop(root, 'tiny'))).toEqual([
      `${root}: --dot-dp-path: expected a .discopop folder with FileMapping.txt and patch_generator/; ` +
        `FileMapping.txt and patch_generator/ missing; did you mean --dot-dp-path ${root}/.discopop?`,
    ]);
  });
});

describe('FileMapping.txt relocation', () => {
  const moved = {
    'include/defs.h': '#define N 10\n',
    '.discopop/FileMapping.txt': '1\t/home/dev/old/demo/src/main.c\n2\t/home/dev/old/demo/include/defs.h\n',
  };

  it('finds the recorded root again when the project moved, and says so', async () => {
    const { root, dot } = minimalProject(moved);
    const dp = await readDotDiscopop(dot, 'tiny');
    expect([...dp.files.values()]).toEqual([
      { id: '1', path: join(root, 'src/main.c'), relPath: 'src/main.c' },
      { id: '2', path: join(root, 'include/defs.h'), relPath: 'include/defs.h' },
    ]);
    expect(dp.notices).toEqual([
      `FileMapping.txt records the project at /home/dev/old/demo; the same files exist under ${root}, so they are read from there`,
    ]);
  });

  it('chooses the longest recorded root under which every file exists', async () => {
    // Under /home/dev/old the relative paths would be demo/src/main.c: that also exists here.
    const { root, dot } = minimalProject(moved);
    addFiles(root, { 'demo/src/main.c': '', 'demo/include/defs.h': '' });
    const dp = await readDotDiscopop(dot, 'tiny');
    expect(dp.files.get('1')?.relPath).toBe('src/main.c');
  });

  it('fails with the lines that cannot be placed when the layout differs', async () => {
    const { root, dot } = minimalProject({
      '.discopop/FileMapping.txt': '1\t/home/dev/old/demo/src/main.c\n2\t/home/dev/old/demo/lib/gone.c\n',
    });
    const lines = await usageLines(readDotDiscopop(dot, 'tiny'));
    expect(lines).toEqual([
      `${dot}/FileMapping.txt: line 2: expected a path inside the project root ${root} (the parent of the .discopop folder; give --project-root when the project is elsewhere); ` +
        '/home/dev/old/demo/lib/gone.c is outside it, and lib/gone.c does not exist under it either',
    ]);
  });

  it('reads the sources under --project-root when .discopop is not inside the project, and names the option when one lies outside it', async () => {
    const root = writeTree({ 'src/main.c': 'int main(void) { return 0; }\n' });
    const { dot } = minimalProject({
      '.discopop/FileMapping.txt': `1\t${root}/src/main.c\n`,
      '.discopop/patch_generator/3/1.patch': PATCH_1.replaceAll('<root>', root),
    });
    const dp = await readDotDiscopop(dot, 'tiny', root);
    expect(dp.projectRoot).toBe(root);
    expect(dp.files.get('1')).toEqual({ id: '1', path: `${root}/src/main.c`, relPath: 'src/main.c' });

    const elsewhere = writeTree({ 'lib/x.c': '' });
    expect(await usageLines(readDotDiscopop(dot, 'tiny', elsewhere))).toEqual([
      `${dot}/FileMapping.txt: line 1: expected a path inside the project root ${elsewhere} (given by --project-root); ${root}/src/main.c is outside it, and main.c does not exist under it either`,
    ]);
  });

  it('compares real paths, so a .discopop reached through a symlink still matches', async () => {
    const { root, dot } = minimalProject();
    const link = join(writeTree({}), 'link');
    symlinkSync(root, link);
    const dp = await readDotDiscopop(join(link, '.discopop'), 'tiny');
    expect(dp.dotDir).toBe(dot);
    expect(dp.notices).toEqual([]);
  });
});

describe('explorer/patterns.json', () => {
  it('turns do_all and reduction entries into pattern info and tolerates other types', async () => {
    const { dot } = minimalProject({
      '.discopop/patch_generator/5/1.patch': '--- a\n+++ b\n',
      '.discopop/patch_generator/8/': '',
      '.discopop/explorer/patterns.json': JSON.stringify({
        version: '5.0.2',
        patterns: {
          optimizer_output: [],
          merged_pattern: [],
          reduction: [
            {
              ...doAllEntry(5, '1:12', '1:15'),
              reduction: ['+:sum'],
              shared: ['a'],
              average_iteration_count: -1,
              scheduling_clause: null,
            },
          ],
          do_all: [
            {
              ...doAllEntry(3, '1:4', '1:9'),
              collapse_level: 2,
              private: ['j'],
              scheduling_clause: 'static',
              average_iteration_count: 4096,
            },
          ],
          task: [{ pattern_id: 8, start_line: '1:20', end_line: '1:30', pragma: ['task'], shared: ['x'] }],
          geometric_decomposition: [{ pattern_id: 'not a number' }],
        },
      }),
    });
    const dp = await readDotDiscopop(dot, 'tiny');
    const byId = new Map(dp.suggestions.map((s) => [s.id, s.pattern]));
    expect(byId.get('3')).toEqual({
      type: 'do_all',
      patternId: 3,
      fileId: '1',
      startLine: 4,
      endLine: 9,
      pragma: '#pragma omp parallel for',
      firstPrivate: [],
      private: ['j'],
      lastPrivate: [],
      shared: [],
      reduction: [],
      collapseLevel: 2,
      scheduling: 'static',
      averageIterationCount: 4096,
    });
    expect(byId.get('5')).toMatchObject({ type: 'reduction', startLine: 12, reduction: ['+:sum'], shared: ['a'] });
    // -1 is DiscoPoP's "not measured"; a null clause is none.
    expect(byId.get('5')).not.toHaveProperty('averageIterationCount');
    expect(byId.get('5')).not.toHaveProperty('scheduling');
    // A list-valued task pragma is not a directive text, so it is left out.
    expect(byId.get('8')).toEqual({
      type: 'task',
      patternId: 8,
      fileId: '1',
      startLine: 20,
      endLine: 30,
      firstPrivate: [],
      private: [],
      lastPrivate: [],
      shared: ['x'],
      reduction: [],
    });
  });

  it('also reads the optimizer and region-merger files, where the explorer id wins', async () => {
    const { dot } = minimalProject({
      '.discopop/patch_generator/9/1.patch': '--- a\n+++ b\n',
      '.discopop/patch_generator/12/1.patch': '--- a\n+++ b\n',
      '.discopop/explorer/patterns.json': JSON.stringify({
        version: '5.0.2',
        patterns: { do_all: [doAllEntry(3, '1:4', '1:9')] },
      }),
      '.discopop/optimizer/patterns.json': JSON.stringify({
        version: '5.0.2',
        patterns: {
          optimizer_output: [
            { pattern_id: 9, start_line: '1:9', end_line: '1:11', applied_patterns: [{ pattern_id: 3 }] },
          ],
          do_all: [{ ...doAllEntry(3, '1:40', '1:41') }],
        },
      }),
      '.discopop/parallel_region_merger/patterns.json': JSON.stringify({
        version: '5.0.2',
        patterns: {
          parallel_region: [{ pattern_id: 12, start_line: '1:2', end_line: '1:20', pragma: '#pragma omp parallel' }],
        },
      }),
    });
    const dp = await readDotDiscopop(dot, 'tiny');
    const byId = new Map(dp.suggestions.map((s) => [s.id, s.pattern]));
    expect(byId.get('3')).toMatchObject({ type: 'do_all', startLine: 4 });
    expect(byId.get('9')).toMatchObject({ type: 'optimizer_output', startLine: 9, endLine: 11 });
    expect(byId.get('12')).toMatchObject({ type: 'parallel_region', startLine: 2, pragma: '#pragma omp parallel' });
  });
});

describe('refuseIfApplied', () => {
  it('passes when nothing is applied', async () => {
    const { dot } = minimalProject({ '.discopop/patch_applicator/applied_suggestions.json': '{"applied": []}' });
    const dp = await readDotDiscopop(dot, 'tiny');
    expect(() => refuseIfApplied(dp)).not.toThrow();
  });

  it('reads integer ids as DiscoPoP writes them in its tests, and refuses the same way', async () => {
    const { dot } = minimalProject({ '.discopop/patch_applicator/applied_suggestions.json': '{"applied": [3, "7"]}' });
    const dp = await readDotDiscopop(dot, 'tiny');
    expect(dp.applied).toEqual(['3', '7']);
    expect(() => refuseIfApplied(dp)).toThrow(RefusedError);
  });

  it('names the applied ids and how to roll them back', async () => {
    const { dot } = minimalProject({
      '.discopop/patch_applicator/applied_suggestions.json': '{"applied": ["3", "7"]}',
    });
    const dp = await readDotDiscopop(dot, 'tiny');
    expect(dp.applied).toEqual(['3', '7']);
    expect(() => refuseIfApplied(dp)).toThrow(RefusedError);
    expect(() => refuseIfApplied(dp)).toThrow(
      `2 suggestions applied to the sources (3, 7); roll them back first with \`discopop_patch_applicator -C\` run inside ${dot}`,
    );
  });
});
