// Scope analysis at a directive: which statement it governs, which loop that is, the names
// declared inside that loop, and the names (with their types) visible where the directive stands.
import { declarationsOf, isDeclarationNode, type Declaration } from './declarations.js';
import type { SyntaxNode, SyntaxTree } from './syntax.js';

const STATEMENTS = new Set([
  'for_statement',
  'for_range_loop',
  'while_statement',
  'do_statement',
  'if_statement',
  'switch_statement',
  'compound_statement',
  'labeled_statement',
  'expression_statement',
  'declaration',
  'return_statement',
  'break_statement',
  'continue_statement',
  'goto_statement',
  'try_statement',
  'throw_statement',
]);
const LOOPS = new Set(['for_statement', 'for_range_loop']);

export type LoopLookup =
  | { kind: 'loop'; loop: SyntaxNode; path: SyntaxNode[] }
  | { kind: 'not-a-loop'; statement: SyntaxNode | null; reason: string };

export interface DirectiveSite {
  /** The first statement after the directive: what the directive governs as written. */
  target: SyntaxNode | null;
  /** The loop a loop directive belongs to: the target, or the loop the target leads into. */
  lookup: LoopLookup;
  /** Names visible at the directive, innermost declaration first. */
  visible: Map<string, Declaration>;
  /** Names declared in the governed statement (loop init and body included). */
  declaredInside: Set<string>;
  /** Names declared by the setup between the directive and its loop: visible once it moves onto the loop. */
  declaredBetween: Set<string>;
  /** False inside a member function whose class (or a base) is not in this file: member names are unknown. */
  membersKnown: boolean;
  /** Rows of the enclosing function (gcc reports an undeclared name only once per function in C). */
  functionRows: { first: number; last: number } | null;
}

/** `afterRow`: the first row after the directive's own line(s). */
export function analyzeSite(tree: SyntaxTree, afterRow: number): DirectiveSite {
  const inBlock = firstStatementFrom(tree.rootNode, afterRow);
  const closed = inBlock ? null : closedBlock(tree.rootNode, afterRow - 1);
  const target = inBlock ?? closed?.next ?? null;
  const lookup = lookupFor(target, closed);
  const governed = lookup.kind === 'loop' ? lookup.loop : target;
  const visible = new Map<string, Declaration>();
  let membersKnown = true;
  let functionRows: DirectiveSite['functionRows'] = null;
  if (governed) {
    const scopes = collectVisible(tree.rootNode, governed, visible);
    membersKnown = scopes.membersKnown;
    functionRows = scopes.functionRows;
  }
  const declaredBetween = new Set(
    lookup.kind === 'loop'
      ? lookup.path.flatMap((node) =>
          node.type === 'declaration' ? declarationsOf(node, 'variable').map((declaration) => declaration.name) : [],
        )
      : [],
  );
  return {
    target,
    lookup,
    visible,
    declaredInside: governed ? namesDeclaredIn(governed) : new Set(),
    declaredBetween,
    membersKnown,
    functionRows,
  };
}

function lookupFor(
  target: SyntaxNode | null,
  closed: { block: SyntaxNode; next: SyntaxNode | null } | null,
): LoopLookup {
  if (target === null) {
    return {
      kind: 'not-a-loop',
      statement: null,
      reason: closed
        ? `no statement follows the block the directive closes (line ${closed.block.endPosition.row + 1})`
        : 'no statement follows the directive',
    };
  }
  const lookup = findLoop(target);
  // At a block's closing brace the directive means the first loop after that block (design.md).
  return closed && lookup.kind === 'loop' ? { ...lookup, path: [closed.block, ...lookup.path] } : lookup;
}

/**
 * The innermost block holding `row` whose closing brace the directive stands at (nothing of the
 * block follows it), and the statement after that block in the enclosing block; null at the end
 * of a function body.
 */
function closedBlock(root: SyntaxNode, row: number): { block: SyntaxNode; next: SyntaxNode | null } | null {
  let block: SyntaxNode | null = null;
  for (let node: SyntaxNode | null = root; node;) {
    const inner: SyntaxNode | null =
      node.namedChildren.find(
        (child) => child !== null && child.startPosition.row <= row && child.endPosition.row > row,
      ) ?? null;
    if (inner?.type === 'compound_statement') block = inner;
    node = inner;
  }
  if (block === null) return null;
  let statement: SyntaxNode = block;
  while (statement.parent && statement.parent.type !== 'compound_statement') {
    if (/^(function_definition|lambda_expression|translation_unit)$/.test(statement.parent.type)) return null;
    statement = statement.parent;
  }
  if (!statement.parent) return null;
  return { block, next: nextStatement(statement) };
}

/**
 * The first statement starting at or after `row`, in document order (outermost at a position).
 * The search stays inside the innermost node that encloses the directive: a directive at the
 * end of a block governs nothing, not the next function's first statement.
 */
function firstStatementFrom(node: SyntaxNode, row: number): SyntaxNode | null {
  for (const child of node.namedChildren) {
    if (!child || child.endPosition.row < row) continue;
    if (child.startPosition.row < row) return firstStatementFrom(child, row);
    if (STATEMENTS.has(child.type)) return child;
    const inner = firstStatementFrom(child, row);
    if (inner) return inner;
  }
  return null;
}

/**
 * The loop a loop directive means (design.md, Directive identity): the target itself, or the first
 * `for` it leads into through a block, an `if` or a label, past the sequential setup that DiscoPoP's
 * line numbers put the directive above (expression statements, calls included, declarations,
 * labels, an `if` or block with neither loop nor jump inside): it runs once before the loop
 * whether the directive stands above it or below. `path` lists the statements passed on the way
 * (empty when the directive already stands above its loop).
 */
export function findLoop(target: SyntaxNode): LoopLookup {
  const path: SyntaxNode[] = [];
  let node: SyntaxNode | null = target;
  while (node) {
    if (LOOPS.has(node.type)) return { kind: 'loop', loop: node, path };
    if (node.type === 'while_statement' || node.type === 'do_statement') {
      const word = node.type === 'while_statement' ? 'while' : 'do';
      const passed =
        path.length === 0
          ? ''
          : `, after the setup the directive was meant to pass (line ${path[0]!.startPosition.row + 1})`;
      return {
        kind: 'not-a-loop',
        statement: node,
        reason: `the directive stands above a '${word}' loop (line ${node.startPosition.row + 1})${passed}; OpenMP needs a canonical 'for' loop, so the loop must be rewritten`,
      };
    }
    const into = leadsInto(node);
    if (into !== undefined) {
      path.push(node);
      node = into;
      continue;
    }
    const notSetup = blockingStatement(node);
    if (notSetup !== null) {
      return {
        kind: 'not-a-loop',
        statement: node,
        reason: `the directive stands above a ${describe(node)} (line ${node.startPosition.row + 1})${notSetup}, not above a 'for' loop`,
      };
    }
    path.push(node);
    const next = nextStatement(node);
    if (next === null) {
      return {
        kind: 'not-a-loop',
        statement: target,
        reason: `the directive stands above a ${describe(target)} (line ${target.startPosition.row + 1}) and no 'for' loop follows it in its block`,
      };
    }
    node = next;
  }
  return {
    kind: 'not-a-loop',
    statement: target,
    reason: `the directive stands above a ${describe(target)} (line ${target.startPosition.row + 1}), not above a 'for' loop`,
  };
}

/** The statement a block, an `if` or a label leads into when it leads into a loop; undefined otherwise. */
function leadsInto(node: SyntaxNode): SyntaxNode | null | undefined {
  let inner: SyntaxNode | null = null;
  if (node.type === 'compound_statement')
    inner = node.namedChildren.find((child) => child !== null && child.type !== 'comment') ?? null;
  else if (node.type === 'if_statement') inner = node.childForFieldName('consequence');
  else if (node.type === 'labeled_statement')
    inner = node.namedChildren.find((child) => child !== null && STATEMENTS.has(child.type)) ?? null;
  else return undefined;
  if (inner === null) return undefined;
  // A label or block leads wherever its first statement does; an `if` only into a loop it wraps.
  if (node.type !== 'if_statement' || findLoop(inner).kind === 'loop') return inner;
  return undefined;
}

const JUMPS = new Set([
  'return_statement',
  'break_statement',
  'continue_statement',
  'goto_statement',
  'throw_statement',
]);
const SETUP = new Set([
  'expression_statement',
  'declaration',
  'if_statement',
  'compound_statement',
  'labeled_statement',
  'type_definition',
]);

/**
 * Why `node` is not sequential setup the directive may move past (a jump or a second loop, which
 * decide whether and which loop runs), as a phrase to append; null when it is setup.
 */
function blockingStatement(node: SyntaxNode): string | null {
  if (!SETUP.has(node.type)) return JUMPS.has(node.type) ? ', which leaves the block before any loop' : '';
  const inside = firstDescendant(
    node,
    (candidate) =>
      JUMPS.has(candidate.type) ||
      LOOPS.has(candidate.type) ||
      candidate.type === 'while_statement' ||
      candidate.type === 'do_statement',
  );
  if (inside === null) return null;
  const what = JUMPS.has(inside.type) ? `a '${inside.type.replace(/_statement$/, '')}'` : 'a loop';
  return ` with ${what} inside (line ${inside.startPosition.row + 1}), so it is not setup the directive could move past`;
}

/**
 * A jump in `loop`'s body that leaves the loop (a `break` not owned by an inner loop or `switch`, a
 * `return`, `goto` or `throw`): a worksharing loop cannot end early, so such a loop must be
 * restructured before any directive can govern it. Null when the body only runs to its end.
 */
export function earlyExit(loop: SyntaxNode): SyntaxNode | null {
  const body = loop.childForFieldName('body');
  return body === null ? null : exitIn(body, false);
}

function exitIn(node: SyntaxNode, breakOwned: boolean): SyntaxNode | null {
  if (node.type === 'break_statement') return breakOwned ? null : node;
  if (['return_statement', 'goto_statement', 'throw_statement'].includes(node.type)) return node;
  if (node.type === 'lambda_expression') return null;
  const owns =
    breakOwned || LOOPS.has(node.type) || ['while_statement', 'do_statement', 'switch_statement'].includes(node.type);
  for (const child of node.namedChildren) {
    if (!child) continue;
    const found = exitIn(child, owns);
    if (found) return found;
  }
  return null;
}

function firstDescendant(node: SyntaxNode, test: (candidate: SyntaxNode) => boolean): SyntaxNode | null {
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (test(child)) return child;
    if (child.type === 'lambda_expression') continue;
    const inner = firstDescendant(child, test);
    if (inner) return inner;
  }
  return null;
}

/** The statement after `node` in its block (out of a label that holds it), comments passed over. */
function nextStatement(node: SyntaxNode): SyntaxNode | null {
  let current: SyntaxNode = node;
  while (current.parent?.type === 'labeled_statement') current = current.parent;
  for (let next = current.nextNamedSibling; next; next = next.nextNamedSibling) {
    if (STATEMENTS.has(next.type) || next.type === 'type_definition') return next;
    if (next.type !== 'comment') return null;
  }
  return null;
}

function describe(node: SyntaxNode): string {
  return node.type.replace(/_statement$/, ' statement').replace(/_/g, ' ');
}

function collectVisible(root: SyntaxNode, from: SyntaxNode, visible: Map<string, Declaration>) {
  let membersKnown = true;
  let functionRows: DirectiveSite['functionRows'] = null;
  const add = (declarations: Declaration[]) => {
    for (const declaration of declarations)
      if (!visible.has(declaration.name)) visible.set(declaration.name, declaration);
  };
  let child = from;
  for (let scope = from.parent; scope; child = scope, scope = scope.parent) {
    switch (scope.type) {
      case 'for_statement':
      case 'for_range_loop':
        if (child.id === scope.childForFieldName('body')?.id) add(loopHeaderDeclarations(scope));
        break;
      case 'function_definition':
      case 'lambda_expression': {
        add(parametersOf(scope));
        if (scope.type === 'function_definition' && functionRows === null) {
          functionRows = { first: scope.startPosition.row, last: scope.endPosition.row };
          const members = membersFor(root, scope);
          if (members === null) membersKnown = false;
          else add(members);
        }
        break;
      }
      default:
        // Blocks, namespaces, the translation unit: what is declared before the directive.
        for (const sibling of scope.namedChildren) {
          if (!sibling || sibling.startIndex >= child.startIndex) break;
          if (isDeclarationNode(sibling) && sibling.type !== 'for_range_loop')
            add(blockAware(scope, declarationsOf(sibling, 'variable')));
          if (sibling.type === 'function_definition') add(functionNameOf(sibling));
        }
    }
  }
  return { membersKnown, functionRows };
}

/**
 * Inside a block, `Coefficients c(base);` and `std::vector<double> v(n);` parse like function
 * declarations (C++'s most vexing parse); in HPC code they are objects, so a block's
 * "functions" are taken as variables.
 */
function blockAware(scope: SyntaxNode, declarations: Declaration[]): Declaration[] {
  if (scope.type !== 'compound_statement') return declarations;
  return declarations.map((declaration) =>
    declaration.kind === 'function' ? { ...declaration, kind: 'variable' } : declaration,
  );
}

function loopHeaderDeclarations(loop: SyntaxNode): Declaration[] {
  if (loop.type === 'for_range_loop') return declarationsOf(loop, 'variable');
  const init = loop.childForFieldName('initializer');
  return init && init.type === 'declaration' ? declarationsOf(init, 'variable') : [];
}

function functionDeclarator(node: SyntaxNode): SyntaxNode | null {
  let declarator = node.childForFieldName('declarator');
  while (declarator && declarator.type !== 'function_declarator')
    declarator = declarator.childForFieldName('declarator');
  return declarator;
}

function parametersOf(fn: SyntaxNode): Declaration[] {
  const list =
    fn.type === 'lambda_expression'
      ? fn.childForFieldName('declarator')?.childForFieldName('parameters')
      : functionDeclarator(fn)?.childForFieldName('parameters');
  if (!list) return [];
  return list.namedChildren.flatMap((parameter) =>
    parameter && isDeclarationNode(parameter) ? declarationsOf(parameter, 'parameter') : [],
  );
}

function functionNameOf(fn: SyntaxNode): Declaration[] {
  const name = functionDeclarator(fn)?.childForFieldName('declarator');
  if (!name || name.type !== 'identifier') return [];
  return [
    {
      name: name.text,
      row: name.startPosition.row,
      kind: 'function',
      typeText: '',
      typeName: null,
      isConst: false,
      isPointer: false,
      isReference: false,
      isArray: false,
    },
  ];
}

/**
 * Data members seen by a member function: those of the enclosing class body, or of the class
 * named in `Class::method`. Null when the class is not in this file or has bases (unknown members).
 */
function membersFor(root: SyntaxNode, fn: SyntaxNode): Declaration[] | null {
  let classNode: SyntaxNode | null = null;
  if (fn.parent?.type === 'field_declaration_list') classNode = fn.parent.parent;
  else {
    const name = functionDeclarator(fn)?.childForFieldName('declarator');
    if (name?.type !== 'qualified_identifier') return [];
    const className = name.childForFieldName('scope')?.text.replace(/<.*$/, '');
    classNode = className ? findClass(root, className) : null;
  }
  if (!classNode) return null;
  if (classNode.namedChildren.some((child) => child?.type === 'base_class_clause')) return null;
  const body = classNode.childForFieldName('body');
  if (!body) return null;
  return body.namedChildren.flatMap((member) =>
    member && member.type === 'field_declaration' ? declarationsOf(member, 'member') : [],
  );
}

function findClass(node: SyntaxNode, name: string): SyntaxNode | null {
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (
      (child.type === 'class_specifier' || child.type === 'struct_specifier') &&
      child.childForFieldName('name')?.text === name &&
      child.childForFieldName('body')
    )
      return child;
    if (child.type === 'function_definition') continue;
    const inner = findClass(child, name);
    if (inner) return inner;
  }
  return null;
}

function namesDeclaredIn(node: SyntaxNode): Set<string> {
  const names = new Set<string>();
  const visit = (current: SyntaxNode) => {
    if (isDeclarationNode(current))
      for (const declaration of declarationsOf(current, 'variable')) names.add(declaration.name);
    for (const child of current.namedChildren) if (child) visit(child);
  };
  visit(node);
  return names;
}

/** The loop `levels - 1` perfectly nested levels below `loop` (`loop` itself for 1). */
export function nestedLoop(loop: SyntaxNode, levels: number): SyntaxNode {
  let current = loop;
  for (let level = 1; level < levels; level++) current = onlyLoopInBody(current) ?? current;
  return current;
}

function onlyLoopInBody(loop: SyntaxNode): SyntaxNode | null {
  let body = loop.childForFieldName('body');
  if (body?.type === 'compound_statement') {
    const statements = body.namedChildren.filter((child) => child !== null && child.type !== 'comment');
    body = statements.length === 1 ? statements[0]! : null;
  }
  return body && LOOPS.has(body.type) ? body : null;
}
