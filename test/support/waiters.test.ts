import { describe, expect, it } from 'vitest';
import { createWaiters } from './waiters.js';

describe('createWaiters', () => {
  it('ends a wait at the first check after its condition holds, and forgets it', async () => {
    const waiters = createWaiters('Thing');
    let ready = false;
    let checks = 0;
    let done = false;
    const wait = waiters
      .until(
        'the flag',
        () => {
          checks++;
          return ready;
        },
        60_000,
      )
      .then(() => {
        done = true;
      });
    waiters.check();
    await Promise.resolve();
    expect(done).toBe(false);
    ready = true;
    waiters.check();
    await wait;
    expect(done).toBe(true);
    const seen = checks;
    waiters.check();
    expect(checks).toBe(seen);
  });

  it('gives up after its deadline, naming the fake and what it waited for', async () => {
    const waiters = createWaiters('Thing');
    await expect(waiters.until('the flag', () => false, 0)).rejects.toThrow(
      'the fake Thing gave up after 0 ms waiting for the flag',
    );
  });
});
