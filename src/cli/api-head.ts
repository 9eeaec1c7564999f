/** `opsctl api -i`: an answer's status line and headers, as curl -i and gh api -i show them, before its body. */
import {STATUS_CODES} from 'node:http'

import {escapeControlChars} from '../control-chars.js'
import {redactHeaders} from '../http/redact.js'

/**
 * `HTTP/1.1 200 OK` and a `name: value` line per header, then an empty line. Cookies and
 * credentials are masked as the --verbose trace masks them; what the server wrote is shown with
 * its control characters escaped.
 */
export function responseHead(status: number, headers: Record<string, string | string[] | undefined>): string {
  const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd()]
  for (const [name, value] of Object.entries(redactHeaders(headers))) lines.push(`${name}: ${value}`)
  return lines.map((line) => escapeControlChars(line)).join('\n') + '\n\n'
}
