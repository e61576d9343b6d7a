/**
 * `slack-app-manifest.yaml` creates the app pipewatch's code expects: the `/pipewatch`
 * command and every request URL at `/slack/events`, a subscription to exactly the events
 * the app listens to, and a bot scope for every Web API method the code calls (the table
 * below says which method needs which scope; a call it does not list fails the test),
 * each scope with the comment that says why.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { COMMAND } from '../../../src/frontends/slack/listeners.js';

const ROOT = resolve(import.meta.dirname, '../../..');
/** The Slack code: the channel that sends, and the front end that answers. */
const SLACK_SRC = [join(ROOT, 'src/channels/slack'), join(ROOT, 'src/frontends/slack')];
const text = readFileSync(join(ROOT, 'slack-app-manifest.yaml'), 'utf8');
const manifest = parse(text);
const URL_ = 'https://YOUR-HOST/slack/events';

/** The bot scopes each Web API method pipewatch calls needs (any one of a list of lists). */
const METHOD_SCOPES: Record<string, string[]> = {
  'auth.test': [],
  'chat.postMessage': ['chat:write'],
  'chat.update': ['chat:write'],
  'conversations.open': ['im:write'],
  'files.completeUploadExternal': ['files:write'],
  'files.getUploadURLExternal': ['files:write'],
  'users.lookupByEmail': ['users:read', 'users:read.email'],
  'users.conversations': ['channels:read', 'groups:read'],
  'views.publish': [],
};

/** The bot scopes each event needs to be delivered. */
const EVENT_SCOPES: Record<string, string[]> = {
  app_home_opened: [],
  channel_archive: ['channels:read'],
  channel_deleted: ['channels:read'],
  group_archive: ['groups:read'],
  group_deleted: ['groups:read'],
  group_left: ['groups:read'],
  member_left_channel: ['channels:read', 'groups:read'],
};

function sources(): string {
  return SLACK_SRC.flatMap((dir) =>
    readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => readFileSync(join(dir, f), 'utf8')),
  ).join('\n');
}

/** Web API methods called as `client.chat.update(`, `web.auth.test(`. */
function calledMethods(): string[] {
  const found = [...sources().matchAll(/\b(?:client|web)\.(\w+)\.(\w+)\(/g)].map(
    (m) => `${m[1]}.${m[2]}`,
  );
  return [...new Set(found)].sort();
}

function listenedEvents(): string[] {
  return [...sources().matchAll(/app\.event\('(\w+)'/g)].map((m) => m[1]!).sort();
}

describe('slack-app-manifest.yaml', () => {
  const scopes: string[] = manifest.oauth_config.scopes.bot;

  it('declares the /pipewatch command, with a usage hint, at /slack/events', () => {
    const [command, ...others] = manifest.features.slash_commands;
    expect(others).toEqual([]);
    expect(command.command).toBe(COMMAND);
    expect(command.url).toBe(URL_);
    expect(command.usage_hint).toMatch(/subscribe .*list.*mute/);
    expect(command.should_escape).toBe(true);
  });

  it('sends interactivity and events to /slack/events, over HTTP unless switched', () => {
    expect(manifest.settings.interactivity).toEqual({ is_enabled: true, request_url: URL_ });
    expect(manifest.settings.event_subscriptions.request_url).toBe(URL_);
    expect(manifest.settings.socket_mode_enabled).toBe(false);
    expect(text).toMatch(/# Socket Mode: true makes Slack send everything over a WebSocket/);
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
    expect(manifest.features.bot_user.display_name).toBe('pipewatch');
  });

  it('subscribes to exactly the events the app listens to', () => {
    expect([...manifest.settings.event_subscriptions.bot_events].sort()).toEqual(listenedEvents());
  });

  it('has a scope for every Web API method the code calls', () => {
    const called = calledMethods();
    expect(called.length).toBeGreaterThanOrEqual(7);
    for (const method of called) {
      expect(METHOD_SCOPES, `${method} is not in the table`).toHaveProperty([method]);
      for (const scope of METHOD_SCOPES[method]!) expect(scopes, method).toContain(scope);
    }
  });

  it('has a scope for every event it subscribes to, and the commands scope', () => {
    for (const event of manifest.settings.event_subscriptions.bot_events) {
      for (const scope of EVENT_SCOPES[event] ?? ['(not in the table)'])
        expect(scopes, event).toContain(scope);
    }
    expect(scopes).toContain('commands');
  });

  it('asks for no scope nothing needs, and says why of each', () => {
    const needed = new Set([
      'commands',
      ...Object.values(METHOD_SCOPES).flat(),
      ...Object.values(EVENT_SCOPES).flat(),
    ]);
    for (const scope of scopes) {
      expect(needed.has(scope), scope).toBe(true);
      const line = text.split('\n').find((l) => l.trim().startsWith(`- ${scope} `));
      expect(line, scope).toMatch(/ # \w+/);
    }
  });
});
