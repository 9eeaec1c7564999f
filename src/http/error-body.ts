import type {FieldError} from '../errors.js'

export interface ParsedErrorBody {
  code?: string
  message?: string
  fieldErrors: FieldError[]
  reference?: string
}

/**
 * Reads the error bodies real servers send:
 * - checkout: `{code, message, parameters: [{field, description}]}`
 * - checkout auth: `{error, code, reference}`
 * - health: `{code?, message, elements: [{id, field}]}`
 * - anything else (HTML, plain text, empty): its first line, as the message.
 */
export function parseErrorBody(body: unknown, rawText: string): ParsedErrorBody {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const b = body as Record<string, unknown>
    const fieldErrors: FieldError[] = []
    if (Array.isArray(b.parameters)) {
      for (const p of b.parameters as Record<string, unknown>[]) {
        fieldErrors.push({field: String(p?.field ?? '?'), description: String(p?.description ?? p?.message ?? 'invalid')})
      }
    }

    if (Array.isArray(b.elements)) {
      for (const e of b.elements as Record<string, unknown>[]) {
        fieldErrors.push({field: String(e?.field ?? '?'), description: String(e?.id ?? e?.message ?? 'invalid')})
      }
    }

    const message = firstString(b.message, b.error, b.detail, b.title)
    return {
      code: b.code === undefined ? undefined : String(b.code),
      message,
      fieldErrors,
      reference: firstString(b.reference, b.requestId),
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
