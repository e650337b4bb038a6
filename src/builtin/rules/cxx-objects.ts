// C++ objects a privatizing clause cannot copy or construct. Copies are needed by firstprivate
// and lastprivate, default construction by private and lastprivate. A non-copyable object
// (unique_ptr, mutex, streams) is shared; one without a default constructor is initialised by
// copy instead (firstprivate; lastprivate keeps its copy-out next to it).
import type { Directive } from '../../patch/openmp.js';
import type { FileDiagnostic } from './rule.js';
import type { Declaration } from '../declarations.js';
import { addEntry, allowsShared, hasEntry, removeEntries } from './clauses.js';
import { nameAt, type Rule, unchanged } from './rule.js';

type Missing = 'copy' | 'default-constructor';
interface ObjectError {
  message: FileDiagnostic;
  className: string;
  missing: Missing;
}

const PRIVATIZING = new Set(['private', 'firstprivate', 'lastprivate']);
const NEEDS: Record<Missing, Set<string>> = {
  copy: new Set(['firstprivate', 'lastprivate']),
  'default-constructor': new Set(['private', 'lastprivate']),
};

export const cxxObjects: Rule = {
  name: 'share-uncopyable-objects',
  apply(input) {
    const objectErrors = input.errors.flatMap((message) => {
      const parsed =
        parseObjectError(message.message) ??
        parseClangObjectError(message.message, clauseAt(input.state.directive, nameAt(input.lines, message)));
      return parsed ? [{ message, ...parsed }] : [];
    });
    if (objectErrors.length === 0) return unchanged(input);
    let directive = input.state.directive;
    const resolved: FileDiagnostic[] = [];
    // Non-copyable first: such an object cannot be helped by firstprivate either.
    const ordered = [...objectErrors].sort((a, b) => (a.missing === b.missing ? 0 : a.missing === 'copy' ? -1 : 1));
    const sharedClasses = new Set<string>();
    const fixed = new Set<string>();
    for (const error of ordered) {
      const variable = culprit(directive, error, input.site.visible, fixed);
      if (variable === null) {
        // Already shared because the same class cannot be copied either.
        if (sharedClasses.has(error.className)) resolved.push(error.message);
        continue;
      }
      if (error.missing === 'copy') {
        directive = shareObject(directive, variable);
        sharedClasses.add(error.className);
      } else {
        directive = copyConstruct(directive, variable);
      }
      fixed.add(`${error.missing}:${variable}`);
      resolved.push(error.message);
    }
    return { kind: 'result', state: { ...input.state, directive }, resolved };
  },
};

/** `use of deleted function 'std::mutex::mutex(const std::mutex&)'` → mutex, copy. */
export function parseObjectError(text: string): { className: string; missing: Missing } | null {
  const noDefault = /^no matching function for call to '(.+)\(\)'$/.exec(text);
  const deleted = /^use of deleted function '(.+)'$/.exec(text);
  const signature = (noDefault?.[1] !== undefined ? `${noDefault[1]}()` : deleted?.[1])?.replace(/ \[with .*$/, '');
  if (signature === undefined) return null;
  const open = topLevelIndex(signature, '(');
  if (open < 0) return null;
  const parameters = signature.slice(open + 1, signature.lastIndexOf(')')).trim();
  const components = splitQualified(signature.slice(0, open));
  const functionName = components.pop() ?? '';
  const owner = functionName.startsWith('operator') ? components.pop() : functionName;
  const className = owner?.split(/\s+/).pop()?.replace(/<.*$/, '').replace(/[&*]/g, '');
  if (!className) return null;
  if (parameters === '') return { className, missing: 'default-constructor' };
  return /^const\b.*&$/.test(parameters) ? { className, missing: 'copy' } : null;
}

/**
 * clang names the class, not the missing member: "call to deleted constructor of 'std::mutex'",
 * "no matching constructor for initialization of 'Scale'". Which constructor was wanted follows
 * from the clause its column points into: private default-constructs, firstprivate copies.
 */
export function parseClangObjectError(
  text: string,
  clause: string | null,
): { className: string; missing: Missing } | null {
  const match = /^(call to deleted constructor|no matching constructor for initialization) of '(.+)'$/.exec(text);
  if (!match) return null;
  const className = splitQualified(match[2]!.replace(/^(const|struct|class)\s+/, ''))
    .pop()
    ?.replace(/<.*$/, '');
  if (!className) return null;
  const deleted = match[1] === 'call to deleted constructor';
  const missing: Missing =
    clause === 'private'
      ? 'default-constructor'
      : clause === 'firstprivate'
        ? 'copy'
        : deleted
          ? 'copy'
          : 'default-constructor';
  return { className, missing };
}

function clauseAt(directive: Directive, name: string | null): string | null {
  if (name === null) return null;
  return (
    directive.clauses.find((clause) => PRIVATIZING.has(clause.name) && (clause.vars ?? []).includes(name))?.name ?? null
  );
}

/** The clause entry an object error is about; each entry answers for one error of a kind. */
function culprit(
  directive: Directive,
  error: ObjectError,
  visible: Map<string, Declaration>,
  fixed: Set<string>,
): string | null {
  const clauses = NEEDS[error.missing];
  const candidates = directive.clauses
    .filter((clause) => clauses.has(clause.name))
    .flatMap((clause) => clause.vars ?? [])
    .filter((entry) => {
      if (fixed.has(`${error.missing}:${entry}`)) return false;
      const declaration = visible.get(entry);
      return (
        declaration !== undefined && declaration.typeName !== null && !declaration.isPointer && !declaration.isReference
      );
    });
  const named = candidates.filter((entry) => {
    const typeName = visible.get(entry)!.typeName!;
    return typeName === error.className || `basic_${typeName}` === error.className;
  });
  if (named.length > 0) return named[0]!;
  return new Set(candidates).size === 1 ? candidates[0]! : null;
}

function shareObject(directive: Directive, name: string): Directive {
  const without = removeEntries(directive, (entry, clause) => entry === name && PRIVATIZING.has(clause.name));
  return allowsShared(without) && !hasEntry(without, 'shared', name) ? addEntry(without, 'shared', name) : without;
}

function copyConstruct(directive: Directive, name: string): Directive {
  const without = removeEntries(directive, (entry, clause) => entry === name && clause.name === 'private');
  return hasEntry(without, 'firstprivate', name) ? without : addEntry(without, 'firstprivate', name);
}

function topLevelIndex(text: string, char: string): number {
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    if (text[index] === '<') depth++;
    else if (text[index] === '>') depth--;
    else if (text[index] === char && depth === 0) return index;
  }
  return -1;
}

function splitQualified(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    if (text[index] === '<') depth++;
    else if (text[index] === '>') depth--;
    else if (depth === 0 && text.startsWith('::', index)) {
      parts.push(text.slice(start, index));
      start = index + 2;
      index++;
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim());
}
