/**
 * English that agrees with its numbers: `1 location`, `2 locations`. One helper, so a
 * count printed anywhere reads as a person would write it, whatever the count.
 */

/** `1 notice`, `0 notices`, `2 entries` (with `plural` for a noun not made by adding s). */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

/**
 * `a notice`, `an operations alert`: the article by the word's first letter, which holds
 * for the words pipewatch puts after one (not for `user` or `hour`: write those out).
 */
export function withArticle(phrase: string): string {
  return `${/^[aeiou]/i.test(phrase) ? 'an' : 'a'} ${phrase}`;
}

/**
 * `SLACK_BOT_TOKEN is`, `SMTP_URL and EMAIL_FROM are`: a subject naming one thing, or
 * several joined by "and" or commas, followed by its verb in agreement.
 */
export function withVerb(subject: string, singular: string, plural: string): string {
  return `${subject} ${/\band\b|,/.test(subject) ? plural : singular}`;
}
