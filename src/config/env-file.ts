/**
 * The `.env` file of the working directory, read with Node's own parser. Variables set in
 * the real environment win over the file, as with every other dotenv loader. Where each
 * name came from is kept, so that a warning about a variable can say where to fix it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';

/** Where the names of an environment were set. */
export interface EnvironmentSources {
  /** Names set in the process environment. */
  environment: ReadonlySet<string>;
  /** Names set in `.env`, each with its line (1-based); empty without a file. */
  dotEnv: ReadonlyMap<string, number>;
}

/** An environment with `.env` merged in, and where each name came from. */
export interface ReadEnvironment {
  env: NodeJS.ProcessEnv;
  sources: EnvironmentSources;
}

/** The line of each name a `.env` text sets (the last, when it is set twice). */
function dotEnvLines(text: string, names: readonly string[]): Map<string, number> {
  const lines = text.split(/\r?\n/);
  const found = new Map<string, number>();
  for (const name of names) {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const assignment = new RegExp(`^\\s*(?:export\\s+)?${escaped}\\s*=`);
    for (let i = lines.length - 1; i >= 0; i--) {
      if (assignment.test(lines[i] ?? '')) {
        found.set(name, i + 1);
        break;
      }
    }
    if (!found.has(name)) found.set(name, 0);
  }
  return found;
}

/** The process environment merged over `<cwd>/.env` when that file exists, with sources. */
export function readEnvironment(
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): ReadEnvironment {
  const environment = new Set(Object.keys(env));
  const path = join(cwd, '.env');
  if (!existsSync(path)) return { env, sources: { environment, dotEnv: new Map() } };
  const text = readFileSync(path, 'utf8');
  const fromFile = parseEnv(text);
  return {
    env: { ...fromFile, ...env },
    sources: { environment, dotEnv: dotEnvLines(text, Object.keys(fromFile)) },
  };
}

/** The process environment merged over `<cwd>/.env` when that file exists. */
export function environmentWithDotEnv(
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): NodeJS.ProcessEnv {
  return readEnvironment(env, cwd).env;
}
