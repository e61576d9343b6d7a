/**
 * The `.env` file of the working directory, read with Node's own parser. Variables set in
 * the real environment win over the file, as with every other dotenv loader.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';

/** The process environment merged over `<cwd>/.env` when that file exists. */
export function environmentWithDotEnv(
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): NodeJS.ProcessEnv {
  const path = join(cwd, '.env');
  if (!existsSync(path)) return env;
  return { ...parseEnv(readFileSync(path, 'utf8')), ...env };
}
