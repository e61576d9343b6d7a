/**
 * The package version, read once from package.json so the User-Agent, `--version` and
 * logs cannot disagree with what is installed.
 */
import { readFileSync } from 'node:fs';

function readVersion(): string {
  try {
    const url = new URL('../../package.json', import.meta.url);
    return (JSON.parse(readFileSync(url, 'utf8')) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** pipewatch's version. */
export const VERSION = readVersion();
