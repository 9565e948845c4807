/**
 * No module-level mutable state in src/ outside the sandbox: every cache has an owner object that
 * someone creates, so its lifetime and its invalidation are explicit. Each source file is parsed with
 * the TypeScript compiler API and its top-level statements are checked.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../src');

/** Methods that change an array, a Map or a Set in place. */
const MUTATORS: ReadonlySet<string> = new Set([
  'push',
  'pop',
  'shift',
  'unshift',
  'splice',
  'sort',
  'reverse',
  'fill',
  'copyWithin',
  'set',
  'add',
  'delete',
  'clear',
]);

const COLLECTIONS: ReadonlySet<string> = new Set(['Map', 'Set', 'WeakMap', 'WeakSet']);

/** Constructors whose instances hold no state that changes (a RegExp without the g or y flag). */
const STATELESS: ReadonlySet<string> = new Set(['RegExp', 'TextEncoder', 'TextDecoder', 'URL']);

/** Whether regex flags make an expression keep `lastIndex` between uses (g, y). */
const statefulFlags = (flags: string): boolean => /[gy]/.test(flags);

/** Every .ts file under `dir`, sandbox excluded. */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (full !== path.join(SRC, 'sandbox')) out.push(...sourceFiles(full));
    } else if (entry.name.endsWith('.ts')) out.push(full);
  }
  return out;
}

/** The expression under any `as`, `satisfies` or parentheses. */
function unwrap(expr: ts.Expression): ts.Expression {
  let e = expr;
  while (ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isParenthesizedExpression(e))
    e = e.expression;
  return e;
}

/** Whether `expr` ends in `as const` (a read-only literal by its type). */
function asConst(expr: ts.Expression): boolean {
  let e = expr;
  while (ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isParenthesizedExpression(e)) {
    if (ts.isAsExpression(e) && ts.isTypeReferenceNode(e.type) && e.type.typeName.getText() === 'const')
      return true;
    e = e.expression;
  }
  return false;
}

/** Whether a declared type says the value is read-only (`ReadonlyMap`, `readonly T[]`, `Readonly<...>`). */
function readonlyType(type: ts.TypeNode | undefined): boolean {
  if (type === undefined) return false;
  return /^(Readonly\w*<|readonly\s)/.test(type.getText());
}

/** The identifier at the root of `a.b[c].d`, if any. */
function rootName(expr: ts.Expression): string | undefined {
  let e = unwrap(expr);
  while (ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e)) e = unwrap(e.expression);
  return ts.isIdentifier(e) ? e.text : undefined;
}

/** Names that the file mutates in place: `x.push(...)`, `x.k = v`, `x[k] = v`, `delete x.k`. */
function mutatedNames(file: ts.SourceFile): Set<string> {
  const out = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const name = rootName(node.expression.expression);
      if (name !== undefined && MUTATORS.has(node.expression.name.text)) out.add(name);
    }
    if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      node.operatorToken.kind <= ts.SyntaxKind.LastAssignment &&
      (ts.isPropertyAccessExpression(node.left) || ts.isElementAccessExpression(node.left))
    ) {
      const name = rootName(node.left);
      if (name !== undefined) out.add(name);
    }
    if (
      (ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) &&
      (node.operator === ts.SyntaxKind.PlusPlusToken || node.operator === ts.SyntaxKind.MinusMinusToken) &&
      (ts.isPropertyAccessExpression(node.operand) || ts.isElementAccessExpression(node.operand))
    ) {
      const name = rootName(node.operand);
      if (name !== undefined) out.add(name);
    }
    if (ts.isDeleteExpression(node)) {
      const name = rootName(node.expression);
      if (name !== undefined) out.add(name);
    }
    if (ts.isCallExpression(node) && /^Object\.(assign|defineProperty)$/.test(node.expression.getText())) {
      const target = node.arguments[0];
      const name = target === undefined ? undefined : rootName(target);
      if (name !== undefined) out.add(name);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

/** Why a top-level `const` holds mutable state, or undefined when it does not. */
function constProblem(decl: ts.VariableDeclaration, mutated: ReadonlySet<string>): string | undefined {
  const init = decl.initializer;
  if (init === undefined || !ts.isIdentifier(decl.name)) return undefined;
  const name = decl.name.text;
  if (readonlyType(decl.type) || asConst(init)) return undefined;
  const value = unwrap(init);
  if (
    ts.isNewExpression(value) &&
    ts.isIdentifier(value.expression) &&
    COLLECTIONS.has(value.expression.text)
  ) {
    return `const ${name} = new ${value.expression.text} at module level`;
  }
  if (
    ts.isRegularExpressionLiteral(value) &&
    statefulFlags(value.text.slice(value.text.lastIndexOf('/') + 1))
  ) {
    return `const ${name} is a regular expression that keeps lastIndex (g or y flag)`;
  }
  if (ts.isNewExpression(value) && ts.isIdentifier(value.expression)) {
    const made = value.expression.text;
    const flags = value.arguments?.[1];
    if (
      made === 'RegExp' &&
      flags !== undefined &&
      (!ts.isStringLiteral(flags) || statefulFlags(flags.text))
    ) {
      return `const ${name} is a regular expression that keeps lastIndex (g or y flag)`;
    }
    if (!STATELESS.has(made)) return `const ${name} = new ${made}: a singleton at module level`;
  }
  if (ts.isCallExpression(value) && value.expression.getText() === 'Object.freeze') return undefined;
  if ((ts.isArrayLiteralExpression(value) || ts.isObjectLiteralExpression(value)) && mutated.has(name)) {
    return `const ${name} is a literal that the module mutates`;
  }
  return undefined;
}

/** The module-level state a source text declares, one line per finding. */
function moduleState(fileName: string, text: string): string[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const mutated = mutatedNames(file);
  const out: string[] = [];
  const where = (node: ts.Node): string =>
    `${fileName}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  for (const statement of file.statements) {
    if (ts.isVariableStatement(statement)) {
      const flags = statement.declarationList.flags;
      const isConst = (flags & ts.NodeFlags.Const) !== 0;
      for (const decl of statement.declarationList.declarations) {
        if (!isConst) {
          out.push(
            `${where(decl)} top-level ${flags & ts.NodeFlags.Let ? 'let' : 'var'} ${decl.name.getText()}`,
          );
          continue;
        }
        const problem = constProblem(decl, mutated);
        if (problem !== undefined) out.push(`${where(decl)} ${problem}`);
      }
    }
  }
  // A class's static field is module-level state under another name.
  for (const statement of file.statements) {
    if (!ts.isClassDeclaration(statement)) continue;
    for (const member of statement.members) {
      const mods = ts.canHaveModifiers(member) ? (ts.getModifiers(member) ?? []) : [];
      if (!ts.isPropertyDeclaration(member) || !mods.some((m) => m.kind === ts.SyntaxKind.StaticKeyword))
        continue;
      const readonly = mods.some((m) => m.kind === ts.SyntaxKind.ReadonlyKeyword);
      const init = member.initializer === undefined ? undefined : unwrap(member.initializer);
      const collection =
        init !== undefined &&
        ts.isNewExpression(init) &&
        ts.isIdentifier(init.expression) &&
        COLLECTIONS.has(init.expression.text);
      if (!readonly || (collection && !readonlyType(member.type))) {
        out.push(`${where(member)} static field ${member.name.getText()}`);
      }
    }
  }
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && node.text === 'globalThis') out.push(`${where(node)} uses globalThis`);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

describe('module-level state', () => {
  it('no file in src/ outside the sandbox holds module-level mutable state', () => {
    const findings = sourceFiles(SRC).flatMap((f) =>
      moduleState(path.relative(SRC, f).split(path.sep).join('/'), readFileSync(f, 'utf8')),
    );
    expect(findings).toEqual([]);
  });

  it('finds a top-level let, a bare collection, a mutated literal or counter, a singleton, a global regex and globalThis', () => {
    const text = [
      'let cached: string | undefined;',
      'const memo = new WeakMap<object, string>();',
      'const seen: ReadonlySet<string> = new Set();',
      'const queue: string[] = [];',
      'export function add(s: string) { queue.push(s); }',
      'const table = { a: 1 };',
      'export function bump() { table.a += 1; }',
      'const fixed = Object.freeze({ b: 2 });',
      'const counter = { n: 0 };',
      'export function tick() { counter.n++; }',
      'const limiter = new TokenBucket(5);',
      'const EVERY = /a/g;',
      'const ONE = /a/i;',
      'export class Pool { static count = 0; static readonly LIMIT = 3; static readonly seen = new Set<string>(); }',
      'const words = ["a"] as const;',
      'const untouched = [1, 2];',
      '(globalThis as Record<string, unknown>).x = 1;',
    ].join('\n');
    expect(moduleState('x.ts', text)).toEqual([
      'x.ts:1 top-level let cached',
      'x.ts:2 const memo = new WeakMap at module level',
      'x.ts:4 const queue is a literal that the module mutates',
      'x.ts:6 const table is a literal that the module mutates',
      'x.ts:9 const counter is a literal that the module mutates',
      'x.ts:11 const limiter = new TokenBucket: a singleton at module level',
      'x.ts:12 const EVERY is a regular expression that keeps lastIndex (g or y flag)',
      'x.ts:14 static field count',
      'x.ts:14 static field seen',
      'x.ts:17 uses globalThis',
    ]);
  });
});
