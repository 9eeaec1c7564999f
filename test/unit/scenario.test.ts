import {describe, expect, it} from 'vitest'

import {parseScenario, ScenarioFileError} from '../../src/runtime/scenario/parse.js'
import {matchValue} from '../../src/runtime/scenario/run.js'
import {substitute} from '../../src/runtime/scenario/vars.js'

const VALID = `name: checkout happy path
vars: {amount: "12.34"}
steps:
  - name: create
    run: opsctl checkout create --amount \${amount} --item "Tea cup:1:\${amount}" --json
    expect:
      exit: 0
      json:
        checkoutId: {exists: true}
        redirectUrl: {matches: "^http"}
    save: {id: checkoutId}
  - run: opsctl checkout get \${id} --json
    expect: {json: {status: {equals: CREATED}, items: {length: 1}}}
`

function problemOf(text: string): ScenarioFileError {
  try {
    parseScenario(text, 'flow.yaml')
  } catch (error) {
    if (error instanceof ScenarioFileError) return error
    throw error
  }

  throw new Error('expected the scenario to be refused')
}

describe('scenario files', () => {
  it('parses the documented format into command lines, keeping quoted arguments whole', () => {
    const scenario = parseScenario(VALID, 'flow.yaml')
    expect(scenario.name).toBe('checkout happy path')
    expect(scenario.steps[0].argv).toEqual(['checkout', 'create', '--amount', '${amount}', '--item', 'Tea cup:1:${amount}', '--json'])
    expect(scenario.steps[0].name).toBe('create')
    expect(scenario.steps[1].name).toBe('checkout get ${id} --json')
    expect(scenario.steps[1].line).toBe(12)
  })

  it('lets --var override the file vars', () => {
    expect(parseScenario(VALID, 'f.yaml', {amount: '99.99'}).vars.amount).toBe('99.99')
  })

  it('reports an unknown key with file, line and the keys it expected', () => {
    const error = problemOf(VALID.replace('    expect:\n      exit: 0', '    expct:\n      exit: 0'))
    expect(error.exitCode).toBe(2)
    expect(error.message).toMatch(/^flow\.yaml:6:5: unknown key "expct" at steps\.0; expected name, run, expect, save, timeout/)
  })

  it('reports a misspelt matcher at its own line', () => {
    const error = problemOf(VALID.replace('{exists: true}', '{exist: true}'))
    expect(error.message).toMatch(/^flow\.yaml:9:\d+: unknown key "exist".*expected equals, matches, exists, length/)
  })

  it('reports a variable used before any vars, --var or save defines it', () => {
    const error = problemOf(VALID.replace('checkout get ${id}', 'checkout get ${checkout_id}'))
    expect(error.message).toMatch(/^flow\.yaml:12:\d+: steps\.1: variable \$\{checkout_id\} is not defined/)
  })

  it('refuses a step that is not an opsctl command line', () => {
    const error = problemOf(VALID.replace('run: opsctl checkout get', 'run: rm -rf / #'))
    expect(error.message).toMatch(/flow\.yaml:12:\d+: steps\.1\.run: expected an opsctl command line/)
  })

  it('reports malformed YAML with its line', () => {
    const error = problemOf('name: x\nsteps:\n  - run: opsctl profile list\n - run: opsctl profile show\n')
    expect(error.message).toMatch(/^flow\.yaml:4:1: invalid YAML: A block sequence may not be used as an implicit map key/)
  })

  it('reports a missing required key', () => {
    const error = problemOf('name: no steps here\n')
    expect(error.message).toMatch(/^flow\.yaml:1:1: steps: /)
  })

  it('substitutes variables and environment references with defaults', () => {
    expect(substitute('a ${x} b ${env:HOME_TOWN|Manila} ${env:OPS_T}', {x: '1'}, {OPS_T: 'set'})).toBe('a 1 b Manila set')
    expect(() => substitute('${env:NOPE}', {}, {})).toThrow(/NOPE is not set/)
  })

  it('matches values with equals, matches, exists and length, saying what it expected', () => {
    expect(matchValue('CREATED', {equals: 'CREATED'}, {})).toBeUndefined()
    expect(matchValue('EXPIRED', {equals: 'CREATED'}, {})).toBe('expected "CREATED", found "EXPIRED"')
    expect(matchValue('chk_1', {equals: '${id}'}, {id: 'chk_1'})).toBeUndefined()
    expect(matchValue('https://x', {matches: '^http'}, {})).toBeUndefined()
    expect(matchValue('ftp://x', {matches: '^http'}, {})).toMatch(/expected to match/)
    expect(matchValue(undefined, {exists: true}, {})).toBe('expected a value, found nothing')
    expect(matchValue(null, {exists: false}, {})).toBeUndefined()
    expect(matchValue([1, 2], {length: 2}, {})).toBeUndefined()
    expect(matchValue([1], {length: 2}, {})).toBe('expected length 2, found 1')
    expect(matchValue({a: 1}, {equals: {a: 1}}, {})).toBeUndefined()
  })
})
