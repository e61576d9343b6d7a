#!/usr/bin/env node
/**
 * Entry point of the `pipewatch` executable: wires the process (streams, environment,
 * signals) to the command line and exits with its status.
 */
import { runCli } from './cli/index.js';

const controller = new AbortController();
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(130);
    stopping = true;
    controller.abort(new Error(`received ${signal}`));
  });
}

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
});
process.exitCode = code;
