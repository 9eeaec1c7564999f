import type {FieldError} from '../errors.js'
import type {ErrorFields} from './services.js'

export interface ParsedErrorBody {
  code?: string
  message?: string
  fieldErrors: FieldError[]
  reference?: string
}

/**
 * Reads the error bodies real servers send:
 * - JSON: `{code?, message}` (or `error`, `detail`, `title`), plus what the service's module reads
 *   of its own shape (`errorFields`: its list of field problems, a message or request id under another key);
 * - anything else (HTML, plain text, empty): its first line, as the message.
 */
export function parseErrorBody(body: unknown, rawText: string, errorFields?: (body: Record<string, unknown>) => ErrorFields): ParsedErrorBody {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const b = body as Record<string, unknown>
    const own = errorFields?.(b) ?? {}
    const code = own.code ?? b.code
    return {
      code: code === undefined ? undefined : String(code),
      message: firstString(b.message, own.message, b.error, b.detail, b.title),
      fieldErrors: own.fieldErrors ?? [],
      reference: firstString(own.reference, b.reference, b.requestId),
    }
  }

  return {message: firstLineOf(rawText), fieldErrors: []}
}

/** The message of a non-JSON body: an HTML page's title (else its text), or a text body's first line. */
function firstLineOf(rawText: string): string | undefined {
  let text = rawText
  if (/<[a-z!][^>]*>/i.test(text)) {
    const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1]
    text = (title && title.trim() ? title : text.replaceAll(/<(script|style|head)[^>]*>[\s\S]*?<\/\1>/gi, ' '))
      .replaceAll(/<[^>]*>/g, '\n')
      .replaceAll('&amp;', '&')
      .replaceAll('&lt;', '<')
      .replaceAll('&gt;', '>')
  }

  const line = text
    .split(/\r?\n/)
    .map((l) => l.replaceAll(/\s+/g, ' ').trim())
    .find(Boolean)
  return line ? line.slice(0, 200) : undefined
}

function firstString(...values: unknown[]): string | undefined {
  for (const v of values) if (typeof v === 'string' && v.trim()) return v
  return undefined
}
