// Facts about names in a loop and types in the file that several rules ask for: which names a
// loop assigns, which are its own variables, a name the file does not use yet, a record's body.
import type { Declaration } from '../declarations.js';
import { declarationsOf } from '../declarations.js';
import type { SyntaxNode } from '../syntax.js';
import type { RuleInput } from './rule.js';

/** Before a name: not the member of an access (`a.x`, `p->x`, `N::x`). */
export const NOT_AFTER_ACCESS = '(?<![\\w.]|->|::)';

export function loopVariablesOf(loop: SyntaxNode): Set<string> {
  const init = loop.childForFieldName('initializer');
  if (!init) return new Set();
  if (init.type === 'declaration')
    return new Set(declarationsOf(init, 'variable').map((declaration) => declaration.name));
  return new Set(identifiersOf(init.text.split('=')[0] ?? ''));
}

export function identifiersOf(expression: string): string[] {
  return [...expression.matchAll(/[A-Za-z_]\w*/g)].map((match) => match[0]);
}

/** The first of `names` the loop assigns, increments or decrements, or null. */
export function writtenIn(input: RuleInput, loop: SyntaxNode, names: string[]): string | null {
  const text = loop.text;
  return (
    names.find(
      (name) =>
        new RegExp(
          `${NOT_AFTER_ACCESS}\\b${name}\\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)|\\b${name}\\s*(?:\\+\\+|--)|(?:\\+\\+|--)\\s*${name}\\b`,
        ).test(text) || input.site.declaredInside.has(name),
    ) ?? null
  );
}

/** `base`, or `base_`, `base__`… whichever the file does not use yet. */
export function freshName(input: RuleInput, base: string): string {
  const source = input.lines.join('\n');
  let name = base;
  while (new RegExp(`\\b${name}\\b`).test(source)) name += '_';
  return name;
}

/** The struct, class or union `name` with a body, or a typedef of an unnamed one. */
export function findRecord(node: SyntaxNode, name: string): SyntaxNode | null {
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (
      /^(class|struct|union)_specifier$/.test(child.type) &&
      child.childForFieldName('name')?.text === name &&
      child.childForFieldName('body')
    )
      return child;
    if (child.type === 'type_definition' && child.childrenForFieldName('declarator').some((d) => d?.text === name)) {
      const record = child.childForFieldName('type');
      if (record?.childForFieldName('body')) return record;
    }
    if (child.type === 'function_definition') continue;
    const inner = findRecord(child, name);
    if (inner) return inner;
  }
  return null;
}

export function fieldOf(root: SyntaxNode, typeName: string | null, member: string): Declaration | null {
  const record = typeName === null ? null : findRecord(root, typeName);
  const body = record?.childForFieldName('body');
  if (!body) return null;
  for (const field of body.namedChildren) {
    if (field?.type !== 'field_declaration') continue;
    const found = declarationsOf(field, 'member').find((declaration) => declaration.name === member);
    if (found) return found;
  }
  return null;
}

/**
 * Whether the type `name` is a typedef, through any chain of typedefs, of an arithmetic type
 * (`typedef double real_t;`): a value like `double`, not a record, pointer or array.
 */
export function isArithmeticTypedef(node: SyntaxNode, name: string, seen: ReadonlySet<string> = new Set()): boolean {
  if (seen.has(name)) return false;
  const definition = typedefOf(node, name);
  if (definition === null) return false;
  const declarator = definition.childrenForFieldName('declarator').find((d) => d?.text === name);
  if (!declarator || declarator.type !== 'type_identifier') return false;
  const type = definition.childForFieldName('type');
  if (type?.type === 'primitive_type' || type?.type === 'sized_type_specifier') return true;
  return type?.type === 'type_identifier' && isArithmeticTypedef(node, type.text, new Set([...seen, name]));
}

function typedefOf(node: SyntaxNode, name: string): SyntaxNode | null {
  for (const child of node.namedChildren) {
    if (!child || child.type === 'function_definition') continue;
    if (child.type === 'type_definition' && child.childrenForFieldName('declarator').some((d) => d?.text === name))
      return child;
    const inner = typedefOf(child, name);
    if (inner) return inner;
  }
  return null;
}
