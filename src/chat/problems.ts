/**
 * A command's problems as its author sees them: the rule schema's verdict on a rule
 * command placed at the word that wrote each value (as `rules validate` places it at a
 * line), and the reply that shows the command with a caret under the first wrong word,
 * every problem, and how the command is written.
 */
import type { z } from 'zod';
import { issueMessages } from '../rules/issues.js';
import { ruleSchema } from '../rules/schema.js';
import type { ChatSpan, Spans, Verb } from './commands.js';
import type { ChatReply } from './types.js';
import { usage } from './usage.js';
import { type ChatProblem, nearest, type WordPart } from './words.js';

type Issue = z.core.$ZodIssue;

/** An issue as what it says and where, a union's by its branch that got furthest. */
function findings(issue: Issue, base: PropertyKey[]): Array<{ path: PropertyKey[]; issue: Issue }> {
  const path = [...base, ...issue.path];
  if (issue.code === 'invalid_union') {
    const typeFails = (branch: Issue[]) =>
      branch.some(
        (i) => i.path.length === 0 && (i.code === 'invalid_type' || i.code === 'invalid_value'),
      );
    const branch = issue.errors.find((b) => !typeFails(b));
    if (branch) return branch.flatMap((i) => findings(i, path));
  }
  return [{ path, issue }];
}

/** The span of the deepest part of `path` a word wrote. */
function spanAt(spans: Spans, path: readonly PropertyKey[]): ChatSpan | undefined {
  for (let n = path.length; n > 0; n--) {
    const span = spans.get(path.slice(0, n).map(String).join('.'));
    if (span) return span;
  }
  return undefined;
}

/**
 * What `ruleSchema` finds wrong with a rule item, each problem at the word that wrote the
 * value. A word that already has a problem (`found`) gets no second one; an issue about
 * the rule as a whole goes to the verb, unless other problems explain it.
 */
export function schemaProblems(
  item: unknown,
  spans: Spans,
  found: readonly ChatProblem[],
  verb: WordPart,
): ChatProblem[] {
  const result = ruleSchema.safeParse(item, { error: issueMessages, reportInput: true });
  if (result.success) return [];
  const taken = new Set(found.map((p) => p.column));
  const problems: ChatProblem[] = [];
  for (const { path, issue } of result.error.issues.flatMap((i) => findings(i, []))) {
    const span = spanAt(spans, path);
    if (!span && found.length > 0) continue;
    const at = span ?? { word: verb.raw, column: verb.column, label: '' };
    if (taken.has(at.column)) continue;
    const meant =
      issue.code === 'invalid_value' && typeof issue.input === 'string'
        ? nearest(issue.input, issue.values.map(String))
        : undefined;
    problems.push({
      message: at.label ? `${at.label}: ${issue.message}` : issue.message,
      word: at.word,
      column: at.column,
      ...(meant === undefined ? {} : { suggestion: meant }),
    });
  }
  return problems;
}

/** How much of the command the reply shows: a phone's code block, so that the caret stays under its word. */
const SHOWN = 60;
/** How many problems the reply lists. */
const LISTED = 10;
const PROMPT = '/pipewatch ';

/** Characters a fixed-width font draws two columns wide (CJK, emoji), and those it draws in none. */
const WIDE =
  /[\p{Emoji_Presentation}\u1100-\u115f\u2e80-\u303e\u3041-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}]/u;
const NONE = /[\p{M}\p{Cf}]/u;
const columns = (chars: readonly string[]) =>
  chars.reduce((n, c) => n + (WIDE.test(c) ? 2 : NONE.test(c) ? 0 : 1), 0);

/** The command as typed, cut around `column`, with a caret line under `length` characters there. */
function caret(text: string, column: number, length: number): string {
  const chars = Array.from(text, (c) => (/[\s\p{Cc}]/u.test(c) ? ' ' : c));
  const at = Math.max(0, column - 1);
  const start = chars.length <= SHOWN ? 0 : Math.max(0, Math.min(at - 20, chars.length - SHOWN));
  const end = Math.min(chars.length, start + SHOWN);
  const before = start > 0 ? '…' : '';
  const line = `${PROMPT}${before}${chars.slice(start, end).join('')}${end < chars.length ? '…' : ''}`;
  const offset =
    PROMPT.length +
    before.length +
    columns(chars.slice(start, at)) +
    Math.max(0, at - chars.length);
  const width = Math.max(1, columns(chars.slice(at, Math.min(end, at + length))));
  return `${line.trimEnd()}\n${' '.repeat(offset)}${'^'.repeat(width)}`;
}

/**
 * The reply to a command with problems, only for the caller: the command with a caret
 * under the first wrong word, each problem, and the usage of `verb` (of every command
 * when the verb itself was not understood, or was `help`).
 */
export function problemReply(
  text: string,
  problems: readonly ChatProblem[],
  verb?: Verb,
): ChatReply {
  const first = problems[0];
  const listed = problems.slice(0, LISTED).map((p) => `• ${p.message}`);
  if (problems.length > LISTED) listed.push(`• and ${problems.length - LISTED} more`);
  return {
    private: true,
    text: first ? `/pipewatch: ${first.message}` : '/pipewatch: the command is not understood',
    sections: [
      ...(first
        ? [
            {
              kind: 'code' as const,
              text: caret(text, first.column, Array.from(first.word).length),
            },
          ]
        : []),
      { kind: 'text', text: listed.join('\n') },
      // help's own usage is every command's.
      { kind: 'code', text: usage(verb === 'help' ? undefined : verb) },
    ],
  };
}
