// What a declaration says about each name it declares: the facts the clause rules need (is the
// object const, a pointer, a reference, an object of class type, and which class).
import type { SyntaxNode } from './syntax.js';

export interface Declaration {
  name: string;
  /** 0-based row of the declarator. */
  row: number;
  kind: 'variable' | 'parameter' | 'member' | 'function';
  /** The type as written, without declarator parts (`std::unique_ptr<double[]>`). */
  typeText: string;
  /** Last identifier of a named (class, struct, typedef) type; null for built-in types. */
  typeName: string | null;
  /** The object itself is const (top-level const, not pointer-to-const). */
  isConst: boolean;
  isPointer: boolean;
  isReference: boolean;
  isArray: boolean;
  /** An array's extents as the source writes them, outermost first (`''` where none is written). */
  extents?: string[];
}

// `for_range_loop` carries `type` and `declarator` fields like a declaration (`for (auto &x : v)`).
const DECLARATION_TYPES = new Set([
  'declaration',
  'field_declaration',
  'parameter_declaration',
  'optional_parameter_declaration',
  'for_range_loop',
]);

export function isDeclarationNode(node: SyntaxNode): boolean {
  return DECLARATION_TYPES.has(node.type);
}

/** Every name a declaration-like node declares (`int a, *b = 0;` → a, b). */
export function declarationsOf(node: SyntaxNode, kind: Declaration['kind']): Declaration[] {
  const typeNode = node.childForFieldName('type');
  const declaredConst = node.namedChildren.some((child) => child?.type === 'type_qualifier' && child.text === 'const');
  const typeText = typeNode?.text ?? '';
  const typeName = typeNode ? namedTypeOf(typeNode) : null;
  const result: Declaration[] = [];
  for (const declarator of node.childrenForFieldName('declarator')) {
    if (!declarator) continue;
    const shape = unwrapDeclarator(declarator);
    if (!shape) continue;
    const declaredKind = shape.isFunction ? 'function' : kind;
    result.push({
      name: shape.name,
      row: shape.row,
      kind: declaredKind,
      typeText,
      typeName,
      isConst: shape.pointerConst ?? (declaredConst && !shape.isPointer),
      isPointer: shape.isPointer,
      isReference: shape.isReference,
      isArray: shape.isArray,
      ...(shape.isArray && { extents: shape.extents }),
    });
  }
  return result;
}

interface DeclaratorShape {
  name: string;
  row: number;
  isPointer: boolean;
  /** Set by the outermost pointer declarator: `double *const p` is const, `const double *p` is not. */
  pointerConst?: boolean;
  isReference: boolean;
  isArray: boolean;
  isFunction: boolean;
  extents: string[];
}

function unwrapDeclarator(start: SyntaxNode): DeclaratorShape | null {
  const shape: Omit<DeclaratorShape, 'name' | 'row'> = {
    isPointer: false,
    isReference: false,
    isArray: false,
    isFunction: false,
    extents: [],
  };
  let node: SyntaxNode | null = start;
  while (node) {
    switch (node.type) {
      case 'identifier':
      case 'field_identifier':
        return { ...shape, name: node.text, row: node.startPosition.row };
      case 'init_declarator':
      case 'parenthesized_declarator':
        node = node.childForFieldName('declarator') ?? node.namedChildren.find((child) => child !== null) ?? null;
        break;
      case 'pointer_declarator':
        if (!shape.isPointer) {
          shape.pointerConst = node.namedChildren.some(
            (child) => child?.type === 'type_qualifier' && child.text === 'const',
          );
        }
        shape.isPointer = true;
        node = node.childForFieldName('declarator');
        break;
      case 'reference_declarator':
        shape.isReference = true;
        node = node.namedChildren.find((child) => child !== null && child.type !== 'type_qualifier') ?? null;
        break;
      case 'array_declarator':
        shape.isArray = true;
        // `a[N][M]` nests as (a[N])[M]: the outer node holds the last extent.
        shape.extents.unshift(node.childForFieldName('size')?.text ?? '');
        node = node.childForFieldName('declarator');
        break;
      case 'function_declarator':
        shape.isFunction = true;
        node = node.childForFieldName('declarator');
        break;
      default:
        // qualified names (`int Grid::count = 0;`), operators, destructors: not a local name.
        return null;
    }
  }
  return null;
}

function namedTypeOf(typeNode: SyntaxNode): string | null {
  switch (typeNode.type) {
    case 'type_identifier':
      return typeNode.text;
    case 'template_type':
    case 'qualified_identifier':
    case 'struct_specifier':
    case 'class_specifier':
    case 'union_specifier': {
      const name = typeNode.childForFieldName('name');
      return name ? namedTypeOf(name) : null;
    }
    default:
      return null;
  }
}
