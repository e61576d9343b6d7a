/**
 * Notices read from a JSON file for `rules test --file`: one notice, a list of them, or a
 * response of the API (`{"data": [...]}`), in the API's JSON form. Every way the file can
 * be wrong is one line naming the file (and the notice and field), exit status 2.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { errorMessage } from '../lib/error-text.js';
import { type Notice, NoticeSchema } from '../upstream/schemas.js';
import { BadInputError, itemProblems } from './errors.js';

function itemsOf(raw: unknown): unknown[] {
  if (Array.isArray(raw)) return raw;
  if (typeof raw === 'object' && raw !== null && !('id' in raw) && 'data' in raw) {
    const data = (raw as { data: unknown }).data;
    return Array.isArray(data) ? data : [data];
  }
  return [raw];
}

/** The notices of `path` (shown as `shown` in messages); throws `BadInputError`. */
export function readNoticeFile(path: string, shown: string): Notice[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'is a directory, not a file'
          : code === 'EACCES'
            ? 'permission denied'
            : `cannot be read (${code ?? 'unknown error'})`;
    throw new BadInputError([`${shown}: ${why}`]);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new BadInputError([`${shown}: not valid JSON (${errorMessage(error)})`]);
  }
  const items = itemsOf(raw);
  if (items.length === 0) throw new BadInputError([`${shown}: holds no notices`]);
  const notObjects = items.findIndex(
    (i) => typeof i !== 'object' || i === null || Array.isArray(i),
  );
  if (notObjects >= 0)
    throw new BadInputError([`${shown}: notice ${notObjects + 1}: must be a JSON object`]);
  const result = z.array(NoticeSchema).safeParse(items);
  if (!result.success) throw new BadInputError(itemProblems(shown, 'notice', items, result.error));
  return result.data;
}
