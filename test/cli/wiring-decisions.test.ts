/**
 * The composition root builds objects and hands them over; it decides nothing. `wireAgent` is
 * parsed with the TypeScript compiler API: the only conditions allowed in it (closures included)
 * are a flag's presence: `config.flag`, `o.option`, `config.x !== undefined` (or `=== undefined`),
 * negated or joined by `&&` / `||`. Any other `if`, `?:`, comparison, `??`, `?.` or `switch` is a
 * decision, and belongs in the module it is about.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const WIRING = path.resolve(import.meta.dirname, '../../src/cli/wiring.ts');

/** Objects whose members are flags: the settings and the wiring's options. */
const FLAG_HOLDERS: ReadonlySet<string> = new Set(['config', 'o']);

const COMPARISONS: ReadonlySet<ts.SyntaxKind> = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
  ts.SyntaxKind.LessThanToken,
  ts.SyntaxKind.LessThanEqualsToken,
  ts.SyntaxKind.GreaterThanToken,
  ts.SyntaxKind.GreaterThanEqualsToken,
  ts.SyntaxKind.AmpersandAmpersandToken,
  ts.SyntaxKind.BarBarToken,
]);

const ALWAYS_DECISIONS: ReadonlySet<ts.SyntaxKind> = new Set([
  ts.SyntaxKind.QuestionQuestionToken,
  ts.SyntaxKind.QuestionQuestionEqualsToken,
  ts.SyntaxKind.BarBarEqualsToken,
  ts.SyntaxKind.AmpersandAmpersandEqualsToken,
]);

/** `config.flag` or `o.option` (one member of a flag holder). */
function isFlag(e: ts.Expression): boolean {
  return (
    ts.isPropertyAccessExpression(e) && ts.isIdentifier(e.expression) && FLAG_HOLDERS.has(e.expression.text)
  );
}

/** Whether `e` is a flag's presence: a flag, `flag !== undefined`, negated or joined. */
function isPresence(e: ts.Expression): boolean {
  if (ts.isParenthesizedExpression(e)) return isPresence(e.expression);
  if (ts.isPrefixUnaryExpression(e) && e.operator === ts.SyntaxKind.ExclamationToken)
    return isPresence(e.operand);
  if (ts.isBinaryExpression(e)) {
    const op = e.operatorToken.kind;
    if (op === ts.SyntaxKind.AmpersandAmpersandToken || op === ts.SyntaxKind.BarBarToken) {
      return isPresence(e.left) && isPresence(e.right);
    }
    if (op === ts.SyntaxKind.ExclamationEqualsEqualsToken || op === ts.SyntaxKind.EqualsEqualsEqualsToken) {
      return isFlag(e.left) && e.right.kind === ts.SyntaxKind.Identifier && e.right.getText() === 'undefined';
    }
    return false;
  }
  return isFlag(e);
}

/** The decisions in the body of function `name` of `text`, one line each (empty when it only wires). */
function decisionsIn(text: string, name: string): string[] {
  const file = ts.createSourceFile('wiring.ts', text, ts.ScriptTarget.Latest, true);
  const fn = file.statements.find(
    (s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === name,
  );
  if (fn?.body === undefined) throw new Error(`no function ${name}`);
  const out: string[] = [];
  // Conditions already judged (allowed, or reported once with their statement).
  const judged = new Set<ts.Node>();
  const say = (node: ts.Node, what: string) =>
    out.push(
      `${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${what}: ${node.getText().slice(0, 60)}`,
    );
  const condition = (node: ts.Node, e: ts.Expression, what: string) => {
    if (!isPresence(e)) say(node, what);
    judged.add(e);
  };
  const visit = (node: ts.Node): void => {
    if (judged.has(node)) return;
    if (ts.isIfStatement(node)) condition(node, node.expression, 'if');
    else if (ts.isConditionalExpression(node)) condition(node, node.condition, 'ternary');
    else if (ts.isSwitchStatement(node)) say(node, 'switch');
    else if (ts.isBinaryExpression(node) && ALWAYS_DECISIONS.has(node.operatorToken.kind)) say(node, '??');
    else if (ts.isBinaryExpression(node) && COMPARISONS.has(node.operatorToken.kind)) say(node, 'comparison');
    else if (
      (ts.isPropertyAccessExpression(node) ||
        ts.isElementAccessExpression(node) ||
        ts.isCallExpression(node)) &&
      node.questionDotToken !== undefined
    ) {
      say(node, '?.');
    }
    ts.forEachChild(node, visit);
  };
  visit(fn.body);
  return out;
}

describe('wireAgent only wires', () => {
  it('holds no conditional but a flag’s presence', () => {
    expect(decisionsIn(readFileSync(WIRING, 'utf8'), 'wireAgent')).toEqual([]);
  });

  it('the rule takes flags and their presence, and finds every other decision', () => {
    const text = `export function wireAgent(o: O) {
      const { config } = o;
      const a = config.dryRun ? undefined : 1;
      const b = config.restartMemo === undefined || config.dryRun ? undefined : 2;
      if (!o.onReconciled) return;
      const c = config.kubeQps === 'auto' ? 1 : 2;
      const d = agent?.queueDepth;
      const e = o.kubeconfig ?? 'x';
      if (plan.refused) return;
      const f = () => settings.exposure.kind !== 'none';
    }`;
    expect(decisionsIn(text, 'wireAgent').map((l) => l.replace(/^\d+: /, '').split(':')[0])).toEqual([
      'ternary',
      '?.',
      '??',
      'if',
      'comparison',
    ]);
  });
});
