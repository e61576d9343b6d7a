/**
 * `pipewatch discord register [--guild ID] [--dry-run]`: puts the `/pipewatch` slash
 * command into the Discord application of `DISCORD_BOT_TOKEN`, globally or in one server.
 * It reads what the application has registered, says what would change, and sends the
 * whole list back with one bulk `PUT` only when something does, so running it again is
 * harmless. A bulk `PUT` replaces every command of the application: its other commands
 * go back into the list as Discord listed them, so registering pipewatch never removes
 * anything else the application offers. Failures are one line each, exit status 1;
 * a missing token or a bad `--guild` is a usage error, exit status 2.
 */
import { Command, InvalidArgumentError } from 'commander';
import type { CliContext } from './context.js';
import type { RegisterOptions } from './discord-register.js';

function snowflake(text: string): string {
  if (!/^\d{17,20}$/.test(text)) {
    throw new InvalidArgumentError('must be a Discord server id (a snowflake: 17 to 20 digits)');
  }
  return text;
}

/** Registers `discord` and its `register` subcommand. */
export function discordCommand(ctx: CliContext): Command {
  const discord = new Command('discord').description("the Discord app's /pipewatch command");
  discord
    .command('register')
    .description('register the /pipewatch slash command with Discord (only when it changed)')
    .option(
      '--guild <id>',
      'in one server only, where it shows at once (to try it out); default: global',
      snowflake,
    )
    .option('--dry-run', 'say what would change, and register nothing')
    .addHelpText(
      'after',
      [
        '',
        'Needs DISCORD_BOT_TOKEN; the application id is DISCORD_APPLICATION_ID, or asked of',
        "Discord. The application's other commands are kept as they are. A global command",
        'takes up to an hour to show in Discord clients; a server one shows at once.',
      ].join('\n'),
    )
    .action(async (opts: RegisterOptions) =>
      (await import('./discord-register.js')).register(ctx, opts),
    );
  return discord;
}
