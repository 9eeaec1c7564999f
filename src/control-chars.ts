/**
 * Text from a service or a file, made safe to show on a terminal: every character a terminal
 * (or a table, a TSV row) would act on instead of showing is written as an escape, so a
 * `requestReferenceNumber` of `REF\e]0;pwned\a` retitles no window and clears no screen.
 *
 * - tab, newline, carriage return: `\t`, `\n`, `\r` (a TSV row or a table line never breaks);
 * - escape (ESC, U+001B): `\e`;
 * - the other C0 controls, DEL and the C1 controls (U+0080 to U+009F): `\xHH` (`\x07` is BEL);
 * - bidirectional overrides, embeddings, isolates and marks (U+061C, U+200E, U+200F,
 *   U+202A to U+202E, U+2066 to U+2069) and the line and paragraph separators (U+2028,
 *   U+2029): `\uHHHH` (`\u202e`).
 *
 * A backslash is left as it is: the escaped form is for reading, not for parsing back. Every
 * renderer of tables, TSV, CSV, key/value records, reports and error lines uses this one
 * function; JSON output keeps the exact value (JSON escapes what it must itself).
 */
 
const CONTROL = /[\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u2028\u2029\u202A-\u202E\u2066-\u2069]/g

const NAMED: Readonly<Record<string, string>> = {'\t': String.raw`\t`, '\n': String.raw`\n`, '\r': String.raw`\r`, '\u001B': String.raw`\e`}

function escapeOne(char: string): string {
  const named = NAMED[char]
  if (named !== undefined) return named
  const code = char.codePointAt(0)!
  return code <= 0xff ? String.raw`\x` + code.toString(16).padStart(2, '0') : String.raw`\u` + code.toString(16).padStart(4, '0')
}

/**
 * The text with every control, bidi and separator character escaped; the same string when there
 * is none. `keepNewlines`: for a message of several lines of its own (a note with its hints),
 * whose parts from a service or a file were single lines.
 */
export function escapeControlChars(text: string, options: {keepNewlines?: boolean} = {}): string {
  CONTROL.lastIndex = 0
  if (!CONTROL.test(text)) return text
  return text.replaceAll(CONTROL, (char) => (char === '\n' && options.keepNewlines ? char : escapeOne(char)))
}
