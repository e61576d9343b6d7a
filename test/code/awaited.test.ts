/**
 * Every promise the source makes is awaited, returned, or let go on purpose (`void`), none
 * is tested for truth (always true), and no test expects a promise to equal a value: a
 * store call left floating on PostgreSQL would write after its transaction ended, or fail
 * with nobody told. The lint's own check (`noFloatingPromises`) cannot see through the
 * asynchronous store's mapped types, so this one asks the compiler for each statement's type.
 */
import { join } from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/** Where promises are checked: the tests too, where a floating one makes a test check nothing. */
const SCOPE = ['src', 'test', 'bench'];

/**
 * Whether a promise statement is taken care of: awaited, let go with `void`, kept
 * (assigned), or given a handler of its own (`.then(…)`, `.catch(…)`, `.finally(…)`).
 */
function handled(e: ts.Expression): boolean {
  if (ts.isAwaitExpression(e) || ts.isVoidExpression(e)) return true;
  if (ts.isBinaryExpression(e) && e.operatorToken.kind >= ts.SyntaxKind.FirstAssignment)
    return e.operatorToken.kind <= ts.SyntaxKind.LastAssignment;
  return (
    ts.isCallExpression(e) &&
    ts.isPropertyAccessExpression(e.expression) &&
    ['then', 'catch', 'finally'].includes(e.expression.name.text)
  );
}

/** The expressions `node` tests for truth: conditions, `!`, and the operands of `&&` and `||`. */
function truthTested(node: ts.Node): ts.Expression[] {
  if (ts.isIfStatement(node) || ts.isWhileStatement(node) || ts.isDoStatement(node))
    return [node.expression];
  if (ts.isForStatement(node)) return node.condition ? [node.condition] : [];
  if (ts.isConditionalExpression(node)) return [node.condition];
  if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.ExclamationToken)
    return [node.operand];
  if (
    ts.isBinaryExpression(node) &&
    (node.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken ||
      node.operatorToken.kind === ts.SyntaxKind.BarBarToken)
  )
    return [node.left];
  return [];
}

/** `file:line  statement` for each expression statement whose value is a promise left alone. */
function floatingPromises(): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: () => undefined,
    },
  );
  if (!config) throw new Error('tsconfig.json could not be read');
  const inScope = (f: string) => SCOPE.some((dir) => f.startsWith(join(ROOT, dir, '/')));
  const files = config.fileNames.filter(inScope);
  const program = ts.createProgram(files, config.options);
  const checker = program.getTypeChecker();
  const found: string[] = [];
  for (const source of program.getSourceFiles()) {
    if (!inScope(source.fileName)) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isExpressionStatement(node)) {
        const e = node.expression;
        const type = checker.getTypeAtLocation(e);
        const thenable = type.getProperty('then') !== undefined;
        if (thenable && !handled(e)) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
          found.push(
            `${source.fileName.slice(ROOT.length + 1)}:${line + 1}  ${node.getText(source)}`,
          );
        }
      }
      // A promise as a truth value is always true: `if (!store.threads.get(…))` never holds.
      for (const condition of truthTested(node)) {
        if (checker.getTypeAtLocation(condition).getProperty('then') === undefined) continue;
        const { line } = source.getLineAndCharacterOfPosition(condition.getStart(source));
        found.push(
          `${source.fileName.slice(ROOT.length + 1)}:${line + 1}  ${condition.getText(source)} (a promise tested for truth)`,
        );
      }
      // `expect(promise).toEqual(…)` compares the promise, not what it resolves to.
      if (
        ts.isCallExpression(node) &&
        ts.isIdentifier(node.expression) &&
        node.expression.text === 'expect' &&
        node.arguments[0] !== undefined &&
        checker.getTypeAtLocation(node.arguments[0]).getProperty('then') !== undefined &&
        !(
          ts.isPropertyAccessExpression(node.parent) &&
          ['resolves', 'rejects'].includes(node.parent.name.text)
        )
      ) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        found.push(
          `${source.fileName.slice(ROOT.length + 1)}:${line + 1}  ${node.getText(source)}`,
        );
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

it('leaves no promise floating in the source, the tests or the benchmarks', () => {
  expect(floatingPromises()).toEqual([]);
}, 120_000);
