import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CliContext } from '../../src/cli/context.js';
import { createLogger, type LogLevel } from '../../src/lib/logger.js';
import { colourWanted } from '../../src/lib/terminal.js';

/** A stream that says it is a terminal (or not) and keeps what it was given. */
class Screen extends Writable {
  text = '';
  constructor(readonly isTTY: boolean) {
    super();
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
  get lines(): string[] {
    return this.text.split('\n').filter((l) => l !== '');
  }
}

const ESC = '\u001b';
const TIME = String.raw`\d\d:\d\d:\d\d`;

function terminal(level: LogLevel, env: Record<string, string> = { NO_COLOR: '1' }) {
  const screen = new Screen(true);
  const log = createLogger({ level, destination: screen, colour: colourWanted(env, screen) });
  return { screen, log };
}

describe('the logger on a terminal', () => {
  it('writes one line per event at info: time, level, message, and no fields', () => {
    const { screen, log } = terminal('info');
    log.info({ feed: 'notices', pages: 2 }, 'notices: 2 new, 1 updated over 2 pages');
    log.warn({ feed: 'capacity', code: 'unavailable' }, 'capacity sync failed: HTTP 503');
    log.debug({ endpoint: '/ip/notices' }, 'not shown at info');
    expect(screen.lines).toHaveLength(2);
    expect(screen.lines[0]).toMatch(
      new RegExp(`^${TIME} INFO  notices: 2 new, 1 updated over 2 pages$`),
    );
    expect(screen.lines[1]).toMatch(new RegExp(`^${TIME} WARN  capacity sync failed: HTTP 503$`));
  });

  it("puts an error's message on the event's line, without its stack", () => {
    const { screen, log } = terminal('info');
    log.error(
      { err: new Error('database is locked') },
      'delivery pass failed; trying again shortly',
    );
    log.error({ err: new Error('EACCES: permission denied') }, '');
    expect(screen.lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${TIME} ERROR delivery pass failed; trying again shortly: database is locked$`,
        ),
      ),
      expect.stringMatching(new RegExp(`^${TIME} ERROR EACCES: permission denied$`)),
    ]);
  });

  it('shows the fields compactly on the same line at debug and trace', () => {
    for (const level of ['debug', 'trace'] as const) {
      const { screen, log } = terminal(level);
      log.info(
        {
          feed: 'notices',
          pages: 2,
          baseline: false,
          reason: 'slack: channel_not_found',
          got: { cycle: 'id1', gasDay: '2026-11-21' },
          err: new Error('boom'),
        },
        'notices: 2 new',
      );
      expect(screen.lines).toEqual([
        expect.stringMatching(
          new RegExp(
            `^${TIME} INFO  notices: 2 new: boom  feed=notices pages=2 baseline=false ` +
              `reason="slack: channel_not_found" got=\\{"cycle":"id1","gasDay":"2026-11-21"\\}$`,
          ),
        ),
      ]);
      expect(screen.text).not.toMatch(/\n\s+at /);
    }
  });

  it('keeps an event on one line and lets no control character reach the terminal', () => {
    const { screen, log } = terminal('debug');
    log.error(
      { subject: `Station 165${ESC}[2J\nflows limited` },
      'rule change rejected, the previous rules stay in force:\nrules/a.yaml:3:5: unknown field\nrules/b.yaml:1:1: bad',
    );
    log.info(`notice ${ESC}]8;;https://evil.example${ESC}\\posted\u0085now`);
    expect(screen.lines).toHaveLength(2);
    expect(screen.lines[0]).toContain(
      'rule change rejected, the previous rules stay in force: rules/a.yaml:3:5: unknown field; rules/b.yaml:1:1: bad',
    );
    expect(screen.lines[0]).toContain(String.raw`subject="Station 165\u001b[2J\nflows limited"`);
    expect(screen.lines[1]).toMatch(/notice \]8;;https:\/\/evil\.example \\posted now$/);
    expect(screen.text).not.toContain(ESC);
  });

  it('lets no bidirectional control reorder a line: dropped from the message, escaped in a field', () => {
    const { screen, log } = terminal('debug');
    const subject = 'OFO \u202eLIFT\u202c for \u2066Station\u2069 165';
    log.info({ subject, word: 'Sta\u202etion' }, `notice 26-0524: ${subject}`);
    log.error({ err: new Error(`refused: ${subject}`) }, 'delivery failed');
    expect(screen.lines[0]).toMatch(
      new RegExp(`^${TIME} INFO  notice 26-0524: OFO LIFT for Station 165  `),
    );
    expect(screen.lines[0]).toContain(
      String.raw`subject="OFO \u202eLIFT\u202c for \u2066Station\u2069 165" word="Sta\u202etion"`,
    );
    expect(screen.lines[1]).toContain('delivery failed: refused: OFO LIFT for Station 165');
    expect(screen.text).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
  });

  it('still redacts secrets in the fields it shows', () => {
    const { screen, log } = terminal('debug');
    log.debug({ token: 'xoxb-1-2-abc', config: { smtpUrl: 'smtp://a:b@h' } }, 'configured');
    expect(screen.text).not.toContain('xoxb-1-2-abc');
    expect(screen.text).not.toContain('smtp://a:b@h');
    expect(screen.text).toContain('token=[redacted] config={"smtpUrl":"[redacted]"}');
  });

  it('replaces a given secret wherever a line quotes it, on a terminal and as JSON', () => {
    const secret = 'sim-premium-key-"quoted"';
    for (const isTTY of [true, false]) {
      const screen = new Screen(isTTY);
      const log = createLogger({ level: 'debug', destination: screen, secrets: [secret] });
      log.error(
        { err: new Error(`refused key ${secret}`), body: { said: `bad key ${secret}` } },
        `API refused ${secret}`,
      );
      log.info('slack answered invalid_auth for xoxb-9-9-unconfiguredToken');
      expect(screen.text).not.toContain('sim-premium-key');
      expect(screen.text).not.toContain('unconfiguredToken');
      expect(screen.text).toContain('API refused [redacted]');
    }
  });

  it('colours only when neither NO_COLOR nor FORCE_COLOR=0 says otherwise', () => {
    const coloured = (env: Record<string, string>) => {
      const { screen, log } = terminal('info', env);
      log.error({ err: new Error('boom') }, 'failed');
      log.info('fine');
      return screen.text;
    };
    expect(coloured({ NO_COLOR: '1' })).not.toContain(ESC);
    expect(coloured({ FORCE_COLOR: '0' })).not.toContain(ESC);
    expect(coloured({ FORCE_COLOR: 'false' })).not.toContain(ESC);
    const plain = coloured({});
    expect(plain).toContain(`${ESC}[31mERROR${ESC}[39m`);
    expect(plain).toContain(`${ESC}[32mINFO `);
    // An empty NO_COLOR counts as not set.
    expect(coloured({ NO_COLOR: '' })).toContain(ESC);
    expect(coloured({ FORCE_COLOR: '1' })).toContain(ESC);
  });
});

describe('colourWanted', () => {
  it('never colours what does not go to a terminal', () => {
    expect(colourWanted({}, new Screen(false))).toBe(false);
    expect(colourWanted({ FORCE_COLOR: '1' }, new Screen(false))).toBe(false);
    expect(colourWanted({}, new Screen(true))).toBe(true);
    expect(colourWanted({ NO_COLOR: 'yes' }, new Screen(true))).toBe(false);
  });

  it("is what a command's logger follows, read from the command's own environment", () => {
    const logged = (env: Record<string, string>) => {
      const stderr = new Screen(true);
      const ctx = new CliContext({
        stdout: new Screen(false),
        stderr,
        env: { LOG_LEVEL: 'info', ...env },
        cwd: '/nonexistent-pipewatch-cwd',
        signal: new AbortController().signal,
      });
      ctx.logger.warn('rules: 3 in force');
      return stderr.text;
    };
    expect(logged({})).toContain(ESC);
    expect(logged({ NO_COLOR: '1' })).toMatch(new RegExp(`^${TIME} WARN  rules: 3 in force\\n$`));
    expect(logged({ FORCE_COLOR: '0' })).not.toContain(ESC);
  });
});

describe('the logger on a pipe', () => {
  it('writes JSON lines with every field, whatever the colour settings', () => {
    const screen = new Screen(false);
    const log = createLogger({ level: 'info', destination: screen, colour: true });
    log.info({ feed: 'notices', pages: 2 }, 'notices: 2 new');
    log.error({ err: new Error('database is locked') }, 'delivery pass failed');
    const [first, second] = screen.lines.map((l) => JSON.parse(l));
    expect(screen.lines).toHaveLength(2);
    expect(first).toMatchObject({
      level: 30,
      name: 'pipewatch',
      msg: 'notices: 2 new',
      feed: 'notices',
      pages: 2,
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(second).toMatchObject({
      level: 50,
      msg: 'delivery pass failed',
      err: { type: 'Error', message: 'database is locked', stack: expect.stringContaining('at ') },
    });
    expect(screen.text).not.toContain(ESC);
  });

  it('escapes bidirectional and C1 controls, so a log viewer shows them, and the value is kept', () => {
    const screen = new Screen(false);
    const log = createLogger({ level: 'info', destination: screen });
    const subject = 'OFO \u202eLIFT\u202c \u2066x\u2069 \u0085 \u2028';
    log.info({ subject }, `notice: ${subject}`);
    expect(screen.text).not.toMatch(/[\u0080-\u009f\u202a-\u202e\u2066-\u2069\u2028]/);
    expect(screen.text).toContain(String.raw`OFO \u202eLIFT\u202c \u2066x\u2069`);
    expect(JSON.parse(screen.lines[0]!)).toMatchObject({ subject, msg: `notice: ${subject}` });
  });
});
