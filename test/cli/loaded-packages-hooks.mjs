/**
 * Module hooks for the loading test: every package a resolved module comes from (the
 * first folder under node_modules) is appended as a line to the file named at register.
 */
import { appendFileSync } from 'node:fs';

let file;

export function initialize(data) {
  file = data.file;
}

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const at = resolved.url.lastIndexOf('/node_modules/');
  if (at >= 0) {
    const parts = resolved.url.slice(at + '/node_modules/'.length).split('/');
    const name = parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
    appendFileSync(file, `${name}\n`);
  }
  return resolved;
}
