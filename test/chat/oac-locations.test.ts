/**
 * `oac` names a location the way a rule file does, and a typo there would leave the
 * subscription silent forever: the location is checked against the pipeline's capacity
 * of the last 7 days, or, when none is stored, against the API's latest capacity before
 * anything is stored. A location nothing matches is refused, only to the caller, with
 * the one meant; nothing is stored.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChatCaller } from '../../src/chat/types.js';
import { latestLocationsOf } from '../../src/cli/latest-locations.js';
import { silentLogger } from '../../src/lib/logger.js';
import { type Simulator, simulatorDefaults, startSimulator } from '../../src/simulator/index.js';
import { PipelineApiClient } from '../../src/upstream/client.js';
import { storeLocations } from '../fakes/pipelines.js';
import { CORE_NOW, type CoreUnderTest, startChatCore } from '../support/chat-core.js';
import { InstantClock, ManualClock } from '../support/clock.js';

const alice: ChatCaller = {
  platform: 'slack',
  channel: 'C0GAS',
  channelName: 'gas',
  user: 'U0ALICE',
};

let started: CoreUnderTest | undefined;
afterEach(() => started?.close());

const text = (r: { sections: Array<{ kind: string; text?: string }> }) =>
  r.sections.map((s) => s.text ?? '').join('\n');

describe('oac on a pipeline whose capacity is stored', () => {
  it('refuses a location none of it matches, with the one meant, only to the caller, storing nothing', async () => {
    started = startChatCore();
    storeLocations(
      started.store,
      'transco',
      [
        ['STATION 85', '1000085'],
        ['PSE&G LINDEN', '1001234'],
      ],
      CORE_NOW,
    );
    const answer = await started.core.command(alice, 'oac transco "Station 58" below:50000');
    expect(answer.reply.private).toBe(true);
    expect(answer.reply.text).toBe(
      "/pipewatch: unknown location 'Station 58' on transco — did you mean 'STATION 85'?",
    );
    expect(text(answer.reply)).toContain(
      '/pipewatch oac transco "Station 58" below:50000\n                       ^^^^^^^^^^^^',
    );
    expect(answer.followUp).toBeUndefined();
    expect(started.store.subscriptions.all()).toEqual([]);

    const right = await started.core.command(alice, 'oac transco "station 85" below:50000');
    expect(right.reply.private).toBe(false);
    expect(right.reply.text).toMatch(/U0ALICE subscribed this channel: transco station 85/);
    expect(started.store.subscriptions.all()).toHaveLength(1);
  });
});

describe('oac on a pipeline with no capacity stored', () => {
  const START = new Date('2026-11-20T15:00:00Z');
  let sim: Simulator;
  let client: PipelineApiClient;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 43, startAt: START, clock: new ManualClock(START) });
    const premium = simulatorDefaults.users.find((u) => u.plan === 'premium')!;
    client = new PipelineApiClient({
      baseUrl: sim.url,
      user: premium.username,
      key: premium.key,
      clock: new InstantClock(START),
      rateLimit: { minTimeMs: 0 },
      logger: silentLogger,
    });
  });
  afterAll(async () => {
    await client.close();
    await sim.close();
  });
  const core = () => startChatCore({ latestLocations: (slug) => latestLocationsOf(client, slug) });

  it("checks the location against the API's latest capacity before storing anything", async () => {
    started = core();
    const typo = await started.core.command(alice, 'oac transco "Station 58" below:50000');
    expect(typo.reply).toMatchObject({
      private: true,
      text: "Checking 'Station 58' against the latest capacity of transco…",
    });
    expect(started.store.subscriptions.all()).toEqual([]);
    const refused = await typo.followUp;
    expect(refused?.private).toBe(true);
    expect(refused?.text).toBe(
      "/pipewatch: unknown location 'Station 58' on transco — did you mean 'STATION 85'?",
    );
    expect(started.store.subscriptions.all()).toEqual([]);

    // What the API gave is remembered a while: the next command is answered at once.
    const right = await started.core.command(alice, 'oac transco "Station 85" below:50000');
    expect(right.reply.private).toBe(false);
    expect(right.reply.text).toMatch(/subscribed this channel: transco station 85/);
    expect(started.store.subscriptions.all()).toHaveLength(1);
  });

  it('refuses, storing nothing, when the API cannot say', async () => {
    started = core();
    // Tracked here, but the simulator has no pipeline of that slug.
    const answer = await started.core.command(alice, 'oac tgp "Station 58" below:50000');
    const refused = await answer.followUp;
    expect(refused?.private).toBe(true);
    expect(refused?.text).toMatch(
      /^Not subscribed: 'Station 58' could not be checked: pipewatch has no capacity of tgp from the last 7 days, and the API did not give its latest \(.+\)\. Nothing was stored; try again in a few minutes\.$/,
    );
    expect(started.store.subscriptions.all()).toEqual([]);
  });
});
