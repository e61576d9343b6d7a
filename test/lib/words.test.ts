/** Counts, articles and verbs that agree with what they stand for. */
import { describe, expect, it } from 'vitest';
import { counted, withArticle, withVerb } from '../../src/lib/words.js';

describe('counted', () => {
  it.each<[number, string, string | undefined, string]>([
    [0, 'location', undefined, '0 locations'],
    [1, 'location', undefined, '1 location'],
    [2, 'location', undefined, '2 locations'],
    [1, 'capacity cycle', undefined, '1 capacity cycle'],
    [3, 'entry', 'entries', '3 entries'],
  ])('%i %s', (n, noun, plural, text) => {
    expect(counted(n, noun, plural)).toBe(text);
  });
});

describe('withArticle', () => {
  it.each([
    ['notice/new', 'a notice/new'],
    ['operations/firing', 'an operations/firing'],
    ['app-level token', 'an app-level token'],
  ])('%s', (phrase, text) => {
    expect(withArticle(phrase)).toBe(text);
  });
});

describe('withVerb', () => {
  it.each([
    ['SLACK_BOT_TOKEN', 'SLACK_BOT_TOKEN is'],
    ['SMTP_URL and EMAIL_FROM', 'SMTP_URL and EMAIL_FROM are'],
    ['A, B and C', 'A, B and C are'],
  ])('%s', (subject, text) => {
    expect(withVerb(subject, 'is', 'are')).toBe(text);
  });
});
