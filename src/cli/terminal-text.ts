/**
 * Text from records (names, reasons, namespaces) printed to an operator's terminal. A name may
 * hold ESC, CR or an OSC sequence: printed raw it rewrites the screen, sets the window title, forges
 * a row or a hyperlink. Every control character (C0, DEL, C1) and the bidirectional overrides that
 * reorder what is shown are printed as visible escapes (`\x1b`, `\u202e`) instead.
 */

/**
 * C0 controls, DEL, C1 controls, and the Unicode bidirectional embeddings, overrides and isolates.
 * Without the global flag, so that it keeps no `lastIndex` between calls.
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function visible(c: string): string {
  const code = c.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with every control character shown as an escape; the same string when it has none. */
export function escapeControls(text: string): string {
  return CONTROL.test(text) ? text.replace(new RegExp(CONTROL, 'g'), visible) : text;
}

/** JSON text whose strings also escape C1 and bidirectional characters (JSON.stringify leaves them raw). */
export function escapeJsonControls(json: string): string {
  return json.replace(
    /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
