/**
 * The Discord app and email unsubscribe as an operator runs them: `pipewatch run` as a
 * process of its own, the simulator as the API, the fake Discord (which signs
 * interactions with a key of its own, as Discord does) and a real SMTP server. A channel
 * subscribes from Discord, the alert arrives with components, and Acknowledge on it,
 * clicked after a restart, edits it for everyone; a subscribed channel that is gone
 * pauses; an address that follows the unsubscribe link of an email, through the reverse
 * proxy pipewatch's public URL names, stops getting that rule's alerts while another
 * address still does. Each story runs pipewatch three or four times, seconds of CPU each:
 * its bound is for a hang, as every step waits on what a process or a fake says.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { subjectAfter } from '../../src/channels/text.js';
import type { Store } from '../../src/store/index.js';
import {
  type DaemonProcess,
  STEP_HANG_MS,
  STORY_HANG_MS,
  startDaemon,
} from '../fakes/daemon-process.js';
import { FAKE_CHANNEL } from '../fakes/discord.js';
import { PERMISSIONS, USERS } from '../fakes/discord-interaction-payloads.js';
import { type DiscordInteractions, discordInteractions } from '../fakes/discord-interactions.js';
import { type Platforms, startPlatforms } from '../fakes/platforms.js';
import { type SimulatedApi, startSimulatedApi } from '../fakes/simulated-api.js';
import { addTranscoConstraint, stopCleanly } from './daemon-steps.js';
import { cli } from './run-cli.js';
import { readStore } from './subscription-fixture.js';

/** A channel of the server the bot was never let into: the fake Discord answers 404. */
const GONE_CHANNEL = '1100000000000000999';
const PUBLIC_URL = 'https://pipewatch.example.com';

let platforms: Platforms;
let api: SimulatedApi;
let discord: DiscordInteractions;
let env: Record<string, string>;
const running: DaemonProcess[] = [];

const RULES = `
rules:
  - name: tetco-constraints
    notices:
      pipelines: [texas-eastern]
      types: [constraint]
    notify:
      - email: alice@example.com
      - email: bob@example.com
`;

beforeAll(async () => {
  platforms = await startPlatforms();
  api = await startSimulatedApi({
    seed: 47,
    start: new Date(Math.floor(Date.now() / 1000) * 1000),
    rules: RULES,
  });
  // The daemon's URL is known only once it runs: requests are built for it then.
  discord = discordInteractions({
    url: 'http://unknown.invalid/',
    fake: platforms.discord,
    clock: { now: () => new Date() },
  });
  env = {
    ...api.env,
    ...platforms.env,
    DISCORD_PUBLIC_KEY: discord.publicKey,
    PIPEWATCH_PUBLIC_URL: PUBLIC_URL,
  };
}, STEP_HANG_MS);
afterEach(() => {
  for (const d of running.splice(0)) d.kill();
});
afterAll(async () => {
  await Promise.all([api.sim.close(), platforms.close()]);
});

function daemon(): DaemonProcess {
  const d = startDaemon(env);
  running.push(d);
  return d;
}

/** What `read` finds in the database the daemons share. */
const withStore = <T>(read: (store: Store) => T): T => readStore(api.dataDir, read);

/** Signs and sends `payload` to the daemon at `base`, as Discord does. */
async function interact(
  base: string,
  payload: { id: string; token: string },
  tamper?: Parameters<DiscordInteractions['build']>[1],
) {
  discord.issue(payload);
  const request = discord.build(payload, tamper);
  return discord.send({ ...request, url: `${base}/discord/interactions` });
}

async function runOnce(): Promise<void> {
  const once = await cli(['run', '--once'], env);
  expect(once.code, once.stderr).toBe(0);
}

describe('the Discord app, in the daemon', { timeout: STORY_HANG_MS }, () => {
  it('subscribe from a channel, get the alert with components, acknowledge it after a restart', async () => {
    await runOnce();
    const first = daemon();
    const base = await first.http;
    const subscribe = (where: Parameters<DiscordInteractions['command']>[2]) =>
      discord.command('subscribe', { pipelines: 'transco', type: 'constraint' }, where);

    // Forged, and by a member who may not manage the channel: nothing stored.
    const forged = await interact(base, subscribe({ permissions: PERMISSIONS.manager }), {
      otherKey: true,
    });
    expect(forged.status).toBe(401);
    const refused = await interact(base, subscribe({ permissions: PERMISSIONS.member }));
    expect(refused.json).toMatchObject({ type: 4, data: { flags: 64 } });
    expect(refused.body).toMatch(/Manage Channels/);
    expect(withStore((s) => s.subscriptions.all())).toEqual([]);

    const made = await interact(base, subscribe({ permissions: PERMISSIONS.manager }));
    expect(made.status).toBe(200);
    expect(made.json).toMatchObject({ type: 4 });
    expect((made.json!.data as { flags?: number }).flags ?? 0).toBe(0);
    expect(made.body).toMatch(/subscribed this channel: transco; type constraint/);
    const replay = await discord.send(made.request);
    expect(replay.status).toBe(401);
    // The follow-up comes through the interaction's webhook.
    await platforms.discord.until(
      'the follow-up',
      () => discord.followUps.length > 0,
      STEP_HANG_MS,
    );
    expect(JSON.stringify(discord.followUps[0]!.body)).toMatch(/would have matched/);
    // A subscription of a channel the bot cannot post to.
    await interact(
      base,
      discord.command(
        'subscribe',
        { pipelines: 'transco' },
        {
          channel: { id: GONE_CHANNEL, name: 'old-gas' },
          permissions: PERMISSIONS.manager,
        },
      ),
    );
    expect(withStore((s) => s.subscriptions.all().map((x) => [x.channel, x.created_by]))).toEqual([
      [`discord:${FAKE_CHANNEL}`, USERS.alice.id],
      [`discord:${GONE_CHANNEL}`, USERS.alice.id],
    ]);
    await stopCleanly(first);

    // A constraint arrives; run --once (no chat) posts it with components.
    const notice = addTranscoConstraint(api);
    await runOnce();
    const alert = platforms.discord.messages.find(
      (m) =>
        m.channel_id === FAKE_CHANNEL &&
        JSON.stringify(m.embeds).includes(subjectAfter(notice.type, notice.subject)),
    );
    expect(alert).toBeDefined();
    const posted = platforms.discord.calls.find(
      (c) =>
        c.method === 'POST' &&
        JSON.stringify(c.body).includes(subjectAfter(notice.type, notice.subject)),
    );
    const components = (posted!.body as { components?: unknown[] }).components ?? [];
    expect(JSON.stringify(components)).toContain('pipewatch:v1:ack');
    // The channel the bot cannot post to paused its subscription.
    const paused = withStore((s) =>
      s.subscriptions.all().find((x) => x.channel === `discord:${GONE_CHANNEL}`),
    );
    expect(paused?.paused_reason).toMatch(/10003/);

    // A new daemon: the button on the old message still works.
    const second = daemon();
    const again = await second.http;
    const click = (user: (typeof USERS)[keyof typeof USERS]) =>
      discord.click(
        {
          customId: 'pipewatch:v1:ack',
          message: { id: alert!.id, embeds: alert!.embeds, components },
        },
        { user },
      );
    const acked = await interact(again, click(USERS.bob));
    expect(acked.json).toMatchObject({ type: 7 });
    const edit = acked.json!.data as { content: string; components: unknown[] };
    expect(edit.content).toContain(`Acknowledged by <@${USERS.bob.id}>`);
    expect(JSON.stringify(edit.components)).not.toContain('pipewatch:v1:ack');
    const later = await interact(again, click(USERS.carol));
    expect(later.json).toMatchObject({ type: 4, data: { flags: 64 } });
    expect(later.body).toMatch(/Already acknowledged by/);
    await stopCleanly(second);
  });
});

describe('email unsubscribe, in the daemon', { timeout: STORY_HANG_MS }, () => {
  it("the link in an email stops that rule's alerts to that address, and nothing else", async () => {
    await runOnce();
    const constraint = (where: string) =>
      api.sim.control.addNotice({
        pipeline_slug: 'texas-eastern',
        type: 'Capacity Constraint',
        category: 'Critical',
        status: 'Initiate',
        subject: `Capacity Constraint - ${where}`,
        response_at: '',
      });
    const mailsOf = (from: number, notice: { type: string; subject: string }) =>
      platforms.smtp.messages
        .slice(from)
        .filter((m) =>
          `${m.parsed?.subject}\n${m.parsed?.text}`.includes(
            subjectAfter(notice.type, notice.subject),
          ),
        );

    // Email goes out from the daemon, whose process trusts the SMTP server's certificate.
    const before = platforms.smtp.messages.length;
    const first = constraint('Delmont compressor station');
    const d = daemon();
    await platforms.smtp.waitFor(before + 2);
    const toAlice = mailsOf(before, first).find((m) => m.envelope.to.includes('alice@example.com'));
    expect(mailsOf(before, first).some((m) => m.envelope.to.includes('bob@example.com'))).toBe(
      true,
    );
    expect(toAlice?.raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r?$/m);
    const link = /List-Unsubscribe:\s*<([^>]+)>/.exec(toAlice!.raw)?.[1];
    expect(link?.startsWith(`${PUBLIC_URL}/unsubscribe/`)).toBe(true);

    // The reverse proxy forwards the public URL to the daemon's port.
    const local = link!.replace(PUBLIC_URL, await d.http);
    const page = await fetch(local);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('alice@example.com');
    expect(withStore((s) => s.silences.list())).toEqual([]);
    const tampered = await fetch(`${local.slice(0, -2)}xx`, { method: 'POST' });
    expect(tampered.status).toBe(400);
    expect(withStore((s) => s.silences.list())).toEqual([]);
    const done = await fetch(local, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(done.status).toBe(200);
    await stopCleanly(d);
    const silences = withStore((s) => s.silences.list());
    expect(silences).toHaveLength(1);
    expect(silences[0]).toMatchObject({ ends_at: null, created_by: 'unsubscribe link' });

    // The next constraint reaches Bob; Alice's alert is held back by the silence.
    const count = platforms.smtp.messages.length;
    const second = constraint('Uniontown lateral');
    const again = daemon();
    await platforms.smtp.waitFor(count + 1);
    await stopCleanly(again);
    expect(mailsOf(count, second).map((m) => m.envelope.to)).toEqual([['bob@example.com']]);
    const held = withStore((s) => s.silences.heldBy(silences[0]!.id));
    expect(held.map((h) => h.target)).toEqual([{ kind: 'email', to: ['alice@example.com'] }]);
  });
});
