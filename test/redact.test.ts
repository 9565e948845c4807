import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/log.ts';
import { MIN_REDACT_LENGTH, REDACTED, Redactor } from '../src/redact.ts';

const SECRET = 'hunter2-correct-horse';

function redactorWith(...values: string[]): Redactor {
  const r = new Redactor();
  r.set('d1', values);
  return r;
}

describe('Redactor.scrub', () => {
  it('replaces every occurrence of a known value, and returns the very string when none occurs', () => {
    const r = redactorWith(SECRET);
    expect(r.scrub(`a ${SECRET} b ${SECRET}`)).toBe(`a ${REDACTED} b ${REDACTED}`);
    expect(r.scrub(SECRET)).toBe(REDACTED);
    const clean = 'nothing to see here, hunter2-correct-hors (one short)';
    expect(r.scrub(clean)).toBe(clean);
    expect(new Redactor().scrub(`a ${SECRET}`)).toBe(`a ${SECRET}`);
  });

  it(`leaves values shorter than ${MIN_REDACT_LENGTH} characters alone, so the log's own words survive`, () => {
    const r = redactorWith('info', 'true', '8080', 'debug', '123456');
    expect(MIN_REDACT_LENGTH).toBe(6);
    expect(r.size).toBe(1);
    expect(r.scrub('{"level":"info","ok":true,"port":8080,"pin":"123456"}')).toBe(
      `{"level":"info","ok":true,"port":8080,"pin":"${REDACTED}"}`,
    );
  });

  it('scrubs the JSON-escaped forms a value takes inside a log line (once, and a quoted body inside it)', () => {
    const value = 'pa"ss\\word\twith-quotes';
    const r = redactorWith(value);
    const line = JSON.stringify({ msg: `refused: value "${value}"` });
    expect(line).not.toContain(value);
    expect(r.scrub(line)).toBe(JSON.stringify({ msg: `refused: value "${REDACTED}"` }));
    const twice = JSON.stringify({ body: JSON.stringify({ env: value }) });
    expect(r.scrub(twice)).not.toContain(JSON.stringify(JSON.stringify(value)).slice(1, -1));
    expect(r.scrub(twice)).toContain(REDACTED);
  });

  it('scrubs the base64 form (a Secret’s data) and each line of a multi-line value', () => {
    const pem =
      '-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nAoIBAQC7VJTUt9Us8cKj\n-----END KEY-----';
    const r = redactorWith(SECRET, pem);
    expect(r.scrub(`data: ${Buffer.from(SECRET).toString('base64')}`)).toBe(`data: ${REDACTED}`);
    expect(r.scrub('quoted one line: MIIEvQIBADANBgkqhkiG9w0BAQEFAASC.')).toBe(
      `quoted one line: ${REDACTED}.`,
    );
    expect(r.scrub(JSON.stringify({ key: pem }))).toBe(`{"key":"${REDACTED}"}`);
  });

  it('replaces overlapping and adjacent values as one span, whichever was given first', () => {
    const r = redactorWith('abcdef-123', '123-uvwxyz', 'abcdef');
    expect(r.scrub('x abcdef-123-uvwxyz y')).toBe(`x ${REDACTED} y`);
    expect(r.scrub('x abcdefabcdef y')).toBe(`x ${REDACTED} y`);
    expect(r.scrub('abcdef')).toBe(REDACTED);
  });

  it('finds values that share a long prefix (tokens of one kind, URLs with credentials)', () => {
    const values = Array.from(
      { length: 300 },
      (_, i) => `sk_live_0000000000${i.toString(36).padStart(4, '0')}`,
    );
    const r = redactorWith(...values);
    for (const v of values) expect(r.scrub(`token=${v};`)).toBe(`token=${REDACTED};`);
    expect(r.scrub('token=sk_live_0000000000zzzz;')).toBe('token=sk_live_0000000000zzzz;');
  });

  it('matches exactly the union of every occurrence of every form (property, against a naive scan)', () => {
    // No brackets in the alphabet: the replacement must not form a value with its neighbours.
    const char = fc.constantFrom(...'ab-c"\\\n12é😀'.split(''), 'x', 'y');
    const word = fc.array(char, { minLength: 0, maxLength: 14 }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 6 }),
        fc.array(fc.tuple(word, fc.nat(5)), { maxLength: 8 }),
        (values, parts) => {
          const r = new Redactor();
          r.set('d', values);
          const text = parts.map(([filler, k]) => `${filler}${values[k % values.length]}`).join('');
          const out = r.scrub(text);
          expect(out).toBe(naiveScrub(text, formsOf(values)));
        },
      ),
      { numRuns: 400 },
    );
  });
});

/** The forms redact.ts documents, built independently. */
function formsOf(values: string[]): string[] {
  const forms = new Set<string>();
  const add = (t: string) => {
    if (t.length < MIN_REDACT_LENGTH) return;
    const once = JSON.stringify(t).slice(1, -1);
    forms.add(t).add(once).add(JSON.stringify(once).slice(1, -1));
  };
  for (const v of values) {
    if (v.length < MIN_REDACT_LENGTH) continue;
    add(v);
    forms.add(Buffer.from(v).toString('base64'));
    if (/[\r\n]/.test(v)) for (const line of v.split(/\r?\n|\r/)) add(line);
  }
  return [...forms];
}

/** Marks every character any occurrence of any form covers; each run of marked ones becomes one replacement. */
function naiveScrub(text: string, forms: string[]): string {
  const covered = new Array<boolean>(text.length).fill(false);
  for (const f of forms) {
    for (let i = text.indexOf(f); i >= 0; i = text.indexOf(f, i + 1)) covered.fill(true, i, i + f.length);
  }
  let out = '';
  for (let i = 0; i < text.length; i++) {
    if (!covered[i]) out += text[i];
    else if (i === 0 || !covered[i - 1]) out += REDACTED;
  }
  // Spans that only touch are one span in both.
  return out;
}

describe('Redactor values', () => {
  it('keeps an owner’s previous values until its next change, then drops them', () => {
    const r = new Redactor();
    r.set('d1', ['first-value']);
    r.set('d1', ['second-value']);
    expect(r.scrub('first-value second-value')).toBe(`${REDACTED} ${REDACTED}`);
    r.set('d1', ['second-value']); // unchanged: nothing moves
    expect(r.scrub('first-value')).toBe(REDACTED);
    r.set('d1', ['third-value']);
    expect(r.scrub('first-value second-value third-value')).toBe(`first-value ${REDACTED} ${REDACTED}`);
  });

  it('forgets an owner’s values, but not a value another owner holds too', () => {
    const r = new Redactor();
    r.set('d1', ['shared-value', 'only-d1-value']);
    r.set('d2', ['shared-value']);
    r.forget('d1');
    expect(r.scrub('shared-value only-d1-value')).toBe(`${REDACTED} only-d1-value`);
    r.forget('d2');
    expect(r.size).toBe(0);
    expect(r.forms).toBe(0);
    expect(r.scrub('shared-value')).toBe('shared-value');
  });

  it('stays correct as its index grows and shrinks through thousands of values', () => {
    const r = new Redactor();
    const value = (i: number) => `value-${i.toString(36)}-${'q'.repeat(i % 7)}`;
    for (let d = 0; d < 2000; d++) r.set(`d${d}`, [value(d * 2), value(d * 2 + 1)]);
    expect(r.size).toBe(4000);
    for (let d = 0; d < 2000; d += 2) r.forget(`d${d}`);
    for (let i = 0; i < 4000; i += 97) {
      const held = Math.floor(i / 2) % 2 === 1;
      expect(r.scrub(`<${value(i)}>`)).toBe(held ? `<${REDACTED}>` : `<${value(i)}>`);
    }
  });

  it("scrubs every string value of a JSON-like value, leaving keys (the agent's words) and the rest", () => {
    const r = redactorWith(SECRET);
    expect(r.scrubDeep({ a: [`x ${SECRET}`, 3, null, true], [SECRET]: { b: SECRET }, c: 'clean' })).toEqual({
      a: [`x ${REDACTED}`, 3, null, true],
      [SECRET]: { b: REDACTED },
      c: 'clean',
    });
  });
});

describe('createLogger with a scrubber', () => {
  function capture(level = 'trace') {
    const lines: string[] = [];
    const redactor = new Redactor();
    const logger = createLogger({
      level,
      destination: { write: (s: string) => lines.push(s) },
      scrubber: redactor,
    });
    return { lines, redactor, logger };
  }

  it('scrubs a value known to the redactor from every line at every level, children included', () => {
    const { lines, redactor, logger } = capture();
    redactor.set('d1', [SECRET]);
    const quoted = `admission webhook "x" denied the request: env value "${SECRET}" is not allowed`;
    logger.trace({ note: SECRET }, `trace ${SECRET}`);
    logger.debug({ nested: { deeper: [SECRET] } }, 'debug');
    logger.info(`info ${quoted}`);
    logger.warn({ err: { message: quoted } }, 'warn');
    logger.error({ code: 'MOORING_E_KUBE_FORBIDDEN' }, quoted);
    logger.fatal({ why: quoted }, 'fatal');
    const child = logger.child({ deploymentId: 'd1' }, { level: 'warn' });
    child.warn(`child ${quoted}`);
    logger.child({ secretish: SECRET }).info('child with bindings');
    expect(lines.length).toBe(8);
    for (const line of lines) {
      expect(line).not.toContain(SECRET);
      expect(() => JSON.parse(line)).not.toThrow();
    }
    expect(lines.join('')).toContain(REDACTED);
    expect(lines.map((l) => (JSON.parse(l) as { level: string }).level)).toEqual([
      'trace',
      'debug',
      'info',
      'warn',
      'error',
      'fatal',
      'warn',
      'info',
    ]);
  });

  it('scrubs a value that JSON escapes inside the line', () => {
    const { lines, redactor, logger } = capture();
    const value = 'tricky "quoted" \\ value';
    redactor.set('d1', [value]);
    logger.error({ err: { message: `value "${value}"` } }, `refused: ${value}`);
    expect(lines[0]).not.toContain(JSON.stringify(value).slice(1, -1));
    expect(JSON.parse(lines[0]!)).toMatchObject({ msg: `refused: ${REDACTED}` });
  });

  it('learns values after it was made: a value set later is scrubbed from the next line', () => {
    const { lines, redactor, logger } = capture('info');
    logger.info(`before ${SECRET}`);
    redactor.set('d1', [SECRET]);
    logger.info(`after ${SECRET}`);
    expect(lines[0]).toContain(SECRET);
    expect(lines[1]).not.toContain(SECRET);
  });
});
