import {XMLParser, XMLValidator} from 'fast-xml-parser'
import {describe, expect, it} from 'vitest'

import {renderReport, type StepResult, summarize, summaryLine} from '../../src/runtime/report.js'

const results: StepResult[] = [
  {durationMs: 12, name: 'create user', operation: 'createUser', outcome: 'passed', requestId: 'r-1', suite: 'health'},
  {
    durationMs: 30,
    message: 'HTTP 500 <boom> & "quotes"',
    name: 'refund',
    operation: 'refundCheckout',
    outcome: 'failed',
    requestId: 'r-2',
    suite: 'checkout',
  },
  {durationMs: 0, message: 'needs a sandbox', name: 'pay', outcome: 'skipped', suite: 'checkout'},
]

describe('reports', () => {
  it('ends with "N passed, N failed, N skipped"', () => {
    expect(summaryLine(summarize(results))).toBe('1 passed, 1 failed, 1 skipped')
  })

  it('writes JUnit XML that a parser reads: a testsuite per suite, a testcase per step, failures and skips marked', async () => {
    const xml = await renderReport(results, 'junit', 'opsctl smoke')
    expect(XMLValidator.validate(xml)).toBe(true)
    const doc = new XMLParser({ignoreAttributes: false, attributeNamePrefix: ''}).parse(xml)
    const suites = [doc.testsuites.testsuite].flat()
    expect(suites.map((s: any) => s.name)).toEqual(['health', 'checkout'])
    expect(doc.testsuites.tests).toBe('3')
    const checkout = suites[1]
    expect(checkout.failures).toBe('1')
    const cases = [checkout.testcase].flat()
    expect(cases).toHaveLength(2)
    expect(cases[0].failure.message).toBe('HTTP 500 <boom> & "quotes" | request id r-2')
    expect(cases[1].skipped.message).toBe('needs a sandbox')
  })

  it('renders JSON with results and the summary', async () => {
    const json = JSON.parse(await renderReport(results, 'json'))
    expect(json.summary).toEqual({failed: 1, passed: 1, skipped: 1})
    expect(json.results[1].requestId).toBe('r-2')
  })

  it('renders a table that names the failed request id', async () => {
    const table = await renderReport(results, 'table')
    expect(table).toContain('request id r-2')
    expect(table.trim().split('\n').at(-1)).toBe('1 passed, 1 failed, 1 skipped')
  })
})
