/**
 * One record cannot blind the agent's diagnostics for everyone: values a record registers as
 * secrets are scrubbed inside the values of a log line only, never its keys, its punctuation or
 * its `level`, `code` and `state`; `/status` keeps every state; the agent's own words (codes,
 * states, level names) are never held. The guarantees of redact.test.ts still hold beside them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agentRedactor } from '../src/cli/agent-settings.ts';
import { createLogger } from '../src/log.ts';
import { REDACTED, Redactor } from '../src/redact.ts';
import { scrubbableRanges } from '../src/redact-json.ts';
import { BLINDING_VALUES } from './support/blinding-values.ts';

const CANARY = 'canary-7d1c-secret-value';

function capture() {
  const lines: string[] = [];
  const redactor = agentRedactor({ apiKey: 'api-key-not-in-lines' });
  const logger = createLogger({ destination: { write: (s: string) => lines.push(s) }, scrubber: redactor });
  return { lines, redactor, logger };
}

describe('a record cannot blind the diagnostics of others', () => {
  it("another deployment's error line stays JSON with its level, code, state and keys", () => {
    const { lines, redactor, logger } = capture();
    redactor.set('hostile', BLINDING_VALUES);
    redactor.set('victim', [CANARY]);
    logger.error(
      {
        code: 'MOORING_E_RENDER_POLICY',
        deploymentId: 'victim',
        state: 'Refused',
        reason: `env "${CANARY}"`,
      },
      'deployment refused: MOORING_E_RENDER_POLICY',
    );
    logger.warn({ code: 'MOORING_E_KUBE_FORBIDDEN', state: 'Progressing' }, 'write refused');
    const [first, second] = lines.map((l) => JSON.parse(l));
    expect(first).toMatchObject({
      level: 'error',
      code: 'MOORING_E_RENDER_POLICY',
      deploymentId: 'victim',
      state: 'Refused',
      reason: `env "${REDACTED}"`,
      msg: 'deployment refused: MOORING_E_RENDER_POLICY',
    });
    expect(second).toMatchObject({ level: 'warn', code: 'MOORING_E_KUBE_FORBIDDEN', state: 'Progressing' });
  });

  it('the agent never holds its own words as secret values', () => {
    const r = agentRedactor({ apiKey: 'api-key-not-in-lines' });
    r.set('hostile', ['MOORING_E_RENDER_POLICY', 'x MOORING_E_KUBE_FORBIDDEN', 'Refused', 'Progressing']);
    expect(r.size).toBe(1);
    expect(r.scrub('MOORING_E_RENDER_POLICY: Refused, Progressing')).toBe(
      'MOORING_E_RENDER_POLICY: Refused, Progressing',
    );
  });

  it("/status keeps every deployment's state and the keys, and still scrubs values", () => {
    const r = agentRedactor({ apiKey: 'api-key-not-in-lines' });
    r.set('hostile', ['Degraded!', 'lastReconcileAt', CANARY]);
    const doc = { deployments: [{ state: 'Degraded!', lastReconcileAt: null, reason: `x ${CANARY}` }] };
    expect(r.scrubDeep(doc)).toEqual({
      deployments: [{ state: 'Degraded!', lastReconcileAt: null, reason: `x ${REDACTED}` }],
    });
  });

  it('random lines: scrubbing never breaks JSON, never changes keys, level, code or state', () => {
    const word = fc.constantFrom(...BLINDING_VALUES, CANARY, 'level', 'error', 'code', '"', '\\', ',', ':');
    fc.assert(
      fc.property(
        fc.array(
          fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join('')),
          { maxLength: 4 },
        ),
        fc.dictionary(
          fc.constantFrom('a', 'b', 'reason', 'nested'),
          fc.array(word).map((w) => w.join('')),
        ),
        (secrets, fields) => {
          const r = new Redactor();
          r.set('d', secrets);
          const obj = {
            level: 'error',
            code: 'MOORING_E_RENDER_POLICY',
            state: 'Refused',
            ...fields,
            msg: 'm',
          };
          const scrubbed = JSON.parse(r.scrubJsonLine(`${JSON.stringify(obj)}\n`));
          expect(Object.keys(scrubbed)).toEqual(Object.keys(obj));
          expect(scrubbed).toMatchObject({
            level: 'error',
            code: 'MOORING_E_RENDER_POLICY',
            state: 'Refused',
          });
        },
      ),
    );
  });

  it('finds the string values of a line, by key, skipping keys and protected fields', () => {
    const line = '{"level":"error","a":"x\\"y","b":["p",{"code":"c","d":"q"}],"n":1}\n';
    const ranges = scrubbableRanges(line)!;
    const texts: string[] = [];
    for (let k = 0; k < ranges.length; k += 2) texts.push(line.slice(ranges[k], ranges[k + 1]));
    expect(texts).toEqual(['x\\"y', 'p', 'q']);
    expect(scrubbableRanges('not json')).toBeUndefined();
  });
});
