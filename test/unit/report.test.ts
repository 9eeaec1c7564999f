import {XMLParser, XMLValidator} from 'fast-xml-parser'
import {afterEach, describe, expect, it} from 'vitest'

import type {View} from '../../src/cli/output/view.js'

import {renderDocument} from '../../src/cli/output.js'
import {REPORT_VIEW} from '../../src/cli/views/report.js'
import {progressLine, renderReport, type StepResult, summarize, summaryLine} from '../../src/runtime/report.js'

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

/** The results as `smoke` and `scenario run` print them when piped (the results list of src/cli/views/report.ts). */
async function listed(steps: StepResult[]): Promise<string> {
  let out = ''
  await renderDocument({results: steps, summary: summarize(steps)}, REPORT_VIEW as View, {format: 'table', terminal: false, truncate: true, width: 80}, {
    err: () => {},
    out: (t) => (out += t),
  })
  return out
}

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

  it("a scenario's JUnit class name is its name once (nightly-ci, not nightly-ci.nightly-ci); its failure names the command and the line", async () => {
    const step: StepResult = {durationMs: 3, line: 9, message: 'boom', name: 'pay it', operation: 'checkout create', outcome: 'failed', suite: 'nightly-ci'}
    const doc = new XMLParser({ignoreAttributes: false, attributeNamePrefix: ''}).parse(await renderReport([step], 'junit', 'nightly-ci'))
    expect(doc.testsuites.testsuite.testcase.classname).toBe('nightly-ci')
    expect(doc.testsuites.testsuite.testcase.failure['#text']).toBe('operation: checkout create\nline: 9\nboom')
    expect(progressLine(step)).toBe('FAIL nightly-ci > pay it (checkout create, line 9) 3 ms - boom')
    // smoke's suites (health, checkout) still sit under the run's title
    const smoke = new XMLParser({ignoreAttributes: false, attributeNamePrefix: ''}).parse(await renderReport(results, 'junit', 'opsctl smoke'))
    expect([smoke.testsuites.testsuite].flat()[0].testcase.classname).toBe('opsctl smoke.health')
  })

  it('renders JSON with results and the summary', async () => {
    const json = JSON.parse(await renderReport(results, 'json'))
    expect(json.summary).toEqual({failed: 1, passed: 1, skipped: 1})
    expect(json.results[1].requestId).toBe('r-2')
  })

  it('shows the results as a list that names the failed request id', async () => {
    const table = await listed(results)
    expect(table.split('\n')[0]).toBe('suite\tname\toperation\toutcome\tms\tdetail')
    expect(table).toContain('request id r-2')
  })
})

describe('what a step carries from its file and its services', () => {
  const step: StepResult = {
    durationMs: 5,
    exit: {code: 5, expected: 0},
    message: 'An account with email patient@demo-clinic.test already exists; ref \u001B]0;pwned\u0007',
    name: "users create --email patient@demo-clinic.test --family-name 'de la Cruz' --given-name Ana\u202E --type patient",
    line: 3,
    operation: 'users create',
    outcome: 'failed',
    suite: 'sign\u001B[2Jup',
  }
  const RAW = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E]/

  afterEach(() => {
    delete process.env.OPSCTL_TRACE_PATIENT_DATA
  })

  it('JUnit names, messages, the results list and progress lines mask emails and escape control characters', async () => {
    const junit = await renderReport([step], 'junit', 'onboarding')
    expect(XMLValidator.validate(junit)).toBe(true)
    const testcase = new XMLParser({ignoreAttributes: false, attributeNamePrefix: ''}).parse(junit).testsuites.testsuite.testcase
    expect(testcase.name).toBe(String.raw`users create --email *******@****-******.**** --family-name '** ** ****' --given-name ***\u202e --type patient`)
    expect(testcase.failure.message).toBe(String.raw`An account with email *******@****-******.**** already exists; ref \e]0;pwned\x07 (exit 5, expected 0)`)
    for (const text of [junit, await listed([step]), progressLine(step)]) {
      expect(text).not.toContain('patient@demo-clinic.test')
      expect(text).not.toMatch(RAW)
    }

    // JSON keeps the exact characters (JSON escapes what it must), the emails masked.
    const json = await renderReport([step], 'json')
    expect(json).not.toContain('patient@demo-clinic.test')
    expect(JSON.parse(json).results[0].suite).toBe(step.suite)
  })

  it('OPSCTL_TRACE_PATIENT_DATA=1 shows the emails', async () => {
    process.env.OPSCTL_TRACE_PATIENT_DATA = '1'
    expect(await renderReport([step], 'junit', 'onboarding')).toContain('patient@demo-clinic.test')
  })
})
