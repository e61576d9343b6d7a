/**
 * Module hooks for the loading tests: every package a resolved module comes from (the
 * first folder under node_modules) is appended as a line to the file named at register;
 * when a second file is named, every module of the project itself (`src/simulator/index.ts`)
 * is appended to it.
 */
import { appendFileSync } from 'node:fs';

let file;
let modules;
let root;

export function initialize(data) {
  file = data.file;
  modules = data.modules;
  root = data.root;
}

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const at = resolved.url.lastIndexOf('/node_modules/');
  if (at >= 0) {
    const parts = resolved.url.slice(at + '/node_modules/'.length).split('/');
    const name = parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
    appendFileSync(file, `${name}\n`);
  } else if (modules && resolved.url.startsWith(root)) {
    appendFileSync(modules, `${resolved.url.slice(root.length)}\n`);
  }
  return resolved;
}
