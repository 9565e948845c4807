import { describe, expect, it } from 'vitest';
import { escapeControls, escapeJsonControls } from '../../src/cli/terminal-text.ts';
import { writeCliError } from '../../src/cli/cli-error.ts';

describe('escapeControls: record text printed to a terminal', () => {
  it.each([
    ['ESC (CSI, OSC)', 'a\u001b[2Kb\u001b]0;t\u0007', 'a\\x1b[2Kb\\x1b]0;t\\x07'],
    ['CR and LF (a forged row)', 'a\r\nb', 'a\\x0d\\x0ab'],
    ['DEL and C1 CSI', 'a\u007f\u009b31m', 'a\\x7f\\x9b31m'],
    ['bidirectional overrides and isolates', 'a\u202eb\u2066c', 'a\\u202eb\\u2066c'],
  ])('shows %s as visible escapes', (_name, raw, shown) => {
    expect(escapeControls(raw)).toBe(shown);
  });

  it('returns the very string when there is nothing to escape, tabs and Unicode letters included', () => {
    const clean = 'shop-é 店';
    expect(escapeControls(clean)).toBe(clean);
  });

  it('JSON output escapes C1 and bidi characters and still parses to the same value', () => {
    const value = { name: 'a\u009b31m\u202eb' };
    const text = escapeJsonControls(JSON.stringify(value));
    expect(text).not.toMatch(/[\u0080-\u009f\u202e]/);
    expect(JSON.parse(text)).toEqual(value);
  });

  it('CLI error lines escape the message they quote', () => {
    let out = '';
    writeCliError(
      { stderr: { write: (s: string) => (out += s) } } as never,
      'render',
      'MOORING_E_INPUT_INVALID',
      'x\u001b]0;t\u0007',
    );
    expect(out).toBe('mooring render: MOORING_E_INPUT_INVALID: x\\x1b]0;t\\x07\n');
  });
});
