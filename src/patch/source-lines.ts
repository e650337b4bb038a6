// C source read line by line, without a parser: which lines a comment holds or the preprocessor
// surely skips, where a directive's continuation lines end, the next statement and the loop a
// directive governs.
import { isOmpPragma } from './openmp.js';

/** The last line of the directive at `start`: each line ending in a backslash continues on the next. */
export function continuationEnd(lines: readonly string[], start: number): number {
  let end = start;
  while (end < lines.length - 1 && /\\\s*$/.test(lines[end]!)) end++;
  return end;
}

/** First statement line at or after `from`: blank lines, comments and stacked directives are skipped. */
export function statementAfter(lines: readonly string[], from: number, inComment = false): number | null {
  for (const index of codeLines(lines, from, inComment)) return index;
  return null;
}

const FOR_LOOP = /^for\s*\(/;

/**
 * The loop a loop construct governs: the first `for` loop at or after `from` in the same block
 * (design.md, Directive identity). A declaration DiscoPoP's line numbers put the directive above,
 * a wrapping `if`, a label or a brace is skipped. When the block ends first (the line number fell
 * on its closing brace), the search goes on after that brace in the enclosing block; that
 * block's end finishes it.
 */
export function loopAfter(lines: readonly string[], from: number, inComment = false): number | null {
  let depth = 0;
  let leftBlock = false;
  for (const index of codeLines(lines, from, inComment)) {
    const line = lines[index]!.trim();
    if (FOR_LOOP.test(line)) return index;
    for (const char of withoutLiterals(line)) {
      if (char === '{') depth++;
      else if (char === '}' && --depth < 0) {
        if (leftBlock) return null;
        leftBlock = true;
        depth = 0;
      }
    }
  }
  return null;
}

/** Why a line is not compiled: `comment`, or the skipped group, e.g. `` `#elif 0` ``; null if it may be. */
export type SwitchedOff = string | null;

/**
 * One `#if` level: why its current group is never compiled (null: it is or may be), and the
 * condition of an earlier group that surely was compiled (`false`: none was, `null`: unknown).
 */
interface Conditional {
  off: string | null;
  taken: string | false | null;
  outerOff: boolean;
}

/**
 * Why each line is not compiled: it begins inside a block comment, or lies in a group the
 * preprocessor surely skips (`#if 0`, `#elif 0`, any group after one `#if 1` took, nested groups
 * inside them); null when it is or may be compiled. Only literal 0 and 1 count: a macro's value is
 * not known here, so its groups count as compiled. A `#pragma omp` in a skipped line is text, not a
 * directive in effect.
 */
export function switchedOff(lines: readonly string[]): SwitchedOff[] {
  const off: SwitchedOff[] = [];
  const stack: Conditional[] = [];
  let inComment = false;
  for (const line of lines) {
    const top = stack.at(-1);
    off.push(inComment ? 'comment' : (top?.off ?? null));
    const conditional = inComment ? null : /^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$/.exec(line);
    if (conditional !== null) {
      const [, keyword, rest] = conditional;
      const text = `#${keyword}${keyword === 'if' || keyword === 'elif' ? ` ${conditionText(rest!)}` : ''}`;
      if (keyword!.startsWith('if')) {
        const outerOff = top !== undefined && top.off !== null;
        const value = keyword === 'if' ? constantCondition(rest!) : null;
        stack.push({
          off: outerOff ? top.off : value === false ? `\`${text}\`` : null,
          taken: value === true ? text : value === false ? false : null,
          outerOff,
        });
      } else if (keyword === 'endif') {
        stack.pop();
      } else if (top !== undefined && !top.outerOff) {
        const value = keyword === 'elif' ? constantCondition(rest!) : true;
        if (typeof top.taken === 'string') {
          top.off = `\`${text}\` after \`${top.taken}\``;
        } else {
          top.off = value === false ? `\`${text}\`` : null;
          // Once a group surely compiles, every later one is skipped, whatever came before it.
          if (value === true) top.taken = text;
          else if (value === null) top.taken = null;
        }
      }
    }
    inComment = endsInComment(line, inComment);
  }
  return off;
}

/** An `#if`/`#elif` condition without its comments. */
function conditionText(rest: string): string {
  return withoutLiterals(rest)
    .replace(/\/\*.*$/, '')
    .trim();
}

/** The value of an `#if`/`#elif` condition that is a literal 0 or 1; null otherwise. */
function constantCondition(rest: string): boolean | null {
  const condition = conditionText(rest);
  if (/^\(*\s*0+\s*\)*$/.test(condition)) return false;
  if (/^\(*\s*1\s*\)*$/.test(condition)) return true;
  return null;
}

export function endsInComment(line: string, inComment: boolean): boolean {
  const code = inComment ? line : line.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""');
  let open = inComment;
  for (let index = 0; index < code.length - 1; index++) {
    const pair = code.slice(index, index + 2);
    if (open && pair === '*/') {
      open = false;
      index++;
    } else if (!open && pair === '//') {
      return false;
    } else if (!open && pair === '/*') {
      open = true;
      index++;
    }
  }
  return open;
}

/** String and character literals and line comments removed, so their braces do not count. */
export function withoutLiterals(line: string): string {
  return line.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""').replace(/\/\/.*$|\/\*.*?\*\//g, '');
}

/** Indexes of the lines at or after `from` that hold code: blank lines, comments and `#pragma omp` lines are passed over. */
function* codeLines(lines: readonly string[], from: number, inComment = false): Generator<number> {
  let inBlockComment = inComment;
  for (let index = from; index < lines.length; index++) {
    const line = lines[index]!.trim();
    if (inBlockComment) {
      if (line.includes('*/')) inBlockComment = false;
      continue;
    }
    if (line === '' || line.startsWith('//') || isOmpPragma(line)) continue;
    if (line.startsWith('/*')) {
      if (!line.includes('*/')) inBlockComment = true;
      else if (!line.endsWith('*/')) yield index;
      continue;
    }
    yield index;
  }
}
