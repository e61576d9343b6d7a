/**
 * Every relative link of the README and the pages in `docs/` leads somewhere: to a file
 * or folder of the repository and, with a `#fragment`, to a heading of that page, as
 * GitHub names headings. The README is the way in, so every page is reachable from it.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { headingAnchors, markdownLinks } from './markdown.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const text = (page: string) => readFileSync(join(root, page), 'utf8');

describe('links in README and docs/', () => {
  it('finds the pages and links to check', () => {
    expect(pages).toContain('docs/configuration.md');
    expect(pages.flatMap((p) => markdownLinks(text(p))).length).toBeGreaterThan(50);
  });

  it.each(pages)('%s: every relative link resolves, to a heading where it names one', (page) => {
    const broken: string[] = [];
    for (const { target, line } of markdownLinks(text(page))) {
      if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // https:, mailto:
      const [path = '', fragment] = target.split('#', 2);
      const file = path === '' ? join(root, page) : join(root, dirname(page), decodeURI(path));
      const where = `${page}:${line} → ${target}`;
      if (!relative(root, file) || relative(root, file).startsWith('..')) {
        broken.push(`${where}: leaves the repository`);
      } else if (!existsSync(file)) {
        broken.push(`${where}: no such file`);
      } else if (fragment !== undefined) {
        if (!file.endsWith('.md') || statSync(file).isDirectory()) {
          broken.push(`${where}: a fragment on what is not a page`);
        } else if (!headingAnchors(readFileSync(file, 'utf8')).has(fragment)) {
          broken.push(`${where}: no heading #${fragment}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('reaches every page of docs/ from the README, link by link', () => {
    const reached = new Set(['README.md']);
    const queue = ['README.md'];
    for (let page = queue.shift(); page; page = queue.shift()) {
      for (const { target } of markdownLinks(text(page))) {
        const path = target.split('#')[0] ?? '';
        if (!path.endsWith('.md') || /^[a-z][a-z+.-]*:/i.test(path)) continue;
        const next = relative(root, join(root, dirname(page), path));
        if (pages.includes(next) && !reached.has(next)) {
          reached.add(next);
          queue.push(next);
        }
      }
    }
    expect(pages.filter((p) => !reached.has(p))).toEqual([]);
  });
});

describe('headingAnchors, as GitHub names headings', () => {
  it('lower-cases, drops punctuation and code marks, and numbers repeats', () => {
    const anchors = headingAnchors(
      [
        '# Chat apps: subscriptions, reminders and silences',
        '## The `/pipewatch` commands',
        "### A dead man's switch",
        '## Who may change what, and limits',
        '## Notices',
        '```sh',
        '# not a heading',
        '```',
        '## Notices',
      ].join('\n'),
    );
    expect([...anchors]).toEqual([
      'chat-apps-subscriptions-reminders-and-silences',
      'the-pipewatch-commands',
      'a-dead-mans-switch',
      'who-may-change-what-and-limits',
      'notices',
      'notices-1',
    ]);
  });
});

describe('markdownLinks', () => {
  it('finds inline links with their lines, and none in code', () => {
    const links = markdownLinks(
      [
        'See [Slack app](chat-apps.md#slack-app) and [`schema`](webhook.schema.json).',
        '`[not](a-link.md)` and',
        '```md',
        '[nor](this.md)',
        '```',
        '[split',
        'text](rules.md "title")',
      ].join('\n'),
    );
    expect(links).toEqual([
      { target: 'chat-apps.md#slack-app', line: 1 },
      { target: 'webhook.schema.json', line: 1 },
      { target: 'rules.md', line: 6 },
    ]);
  });
});
