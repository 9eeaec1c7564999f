/**
 * The redaction walks (traces, dry runs, the transport's check for credentials) stop at a fixed
 * depth: JSON nested 10,000 deep, from a file or a server, is shown cut off, never a stack
 * overflow, and never shown unredacted.
 */
import {describe, expect, it} from 'vitest'

import {hasSecretField, maskedFields, maskFields, redactBody} from '../../../src/http/redact.js'

/** `{"a": {"a": ... {"password": "hunter2"}}}`, `depth` levels deep. */
function nested(depth: number): unknown {
  let value: unknown = {password: 'hunter2'}
  for (let i = 0; i < depth; i++) value = {a: value}
  return value
}

describe('redaction of deeply nested JSON', () => {
  it('cuts a value nested 10,000 deep off, without overflowing, and never shows what is below', () => {
    const deep = nested(10_000)
    const shown = JSON.stringify(redactBody(deep))
    expect(shown).toContain('[NESTED TOO DEEP]')
    expect(shown).not.toContain('hunter2')
    expect(hasSecretField(deep)).toBe(true)
    expect(JSON.stringify(maskFields(deep, maskedFields(['note'])))).toContain('[NESTED TOO DEEP]')
  })

  it('still redacts at ordinary depths', () => {
    expect(JSON.stringify(redactBody(nested(10)))).toContain('[REDACTED]')
    expect(hasSecretField({a: [{b: 1}]})).toBe(false)
  })
})
