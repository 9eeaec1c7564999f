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

  const text = rawText
    .replaceAll(/<[^>]*>/g, ' ')
    .replaceAll(/\s+/g, ' ')
    .trim()
  return {message: text ? text.slice(0, 200) : undefined, fieldErrors: []}
}

function firstString(...values: unknown[]): string | undefined {
  for (const v of values) if (typeof v === 'string' && v.trim()) return v
  return undefined
}
