import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {loadScenario, parseScenario, ScenarioFileError} from '../../src/runtime/scenario/parse.js'
import {matchValue, valueAt} from '../../src/runtime/scenario/run.js'
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
    expect(error.details[0] ?? error.message).toMatch(/^flow\.yaml:4:1: invalid YAML: A block sequence may not be used as an implicit map key/)
  })

  it('reports a missing required key', () => {
    const error = problemOf('name: no steps here\n')
    expect(error.message).toMatch(/^flow\.yaml:1:1: missing key "steps" at the top level/)
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

describe('scenario files that explain themselves', () => {
  it('names the scenario after its file when the file does not', () => {
    expect(parseScenario('steps:\n  - run: opsctl profile list\n', 'ci/nightly-checks.yaml').name).toBe('nightly-checks')
  })

  it('reads a plain value as equals, for text, numbers, booleans, null and lists', () => {
    const scenario = parseScenario(
      'steps:\n  - run: opsctl checkout get x --json\n    expect: {json: {amount: "25.00", count: 2, paid: true, note: null, tags: [a]}}\n',
      'f.yaml',
    )
    expect(scenario.steps[0].raw.expect?.json).toEqual({
      amount: {equals: '25.00'},
      count: {equals: 2},
      note: {equals: null},
      paid: {equals: true},
      tags: {equals: ['a']},
    })
  })

  it('addresses the whole document with $, so a top-level list can be checked', () => {
    expect(matchValue(valueAt([{id: 'a'}], '$'), {length: 1}, {})).toBeUndefined()
    expect(matchValue(valueAt([{id: 'a'}, {id: 'b'}], '$'), {length: 1}, {})).toBe('expected length 1, found 2')
    expect(valueAt([{id: 'a'}, {id: 'b'}], '$.1.id')).toBe('b')
    expect(valueAt({events: [{id: 'e1'}]}, 'events.0.id')).toBe('e1')
  })

  it('refuses pipes and other shell syntax in run, with the line and what to use instead', () => {
    for (const [run, op] of [
      ['opsctl webhook list --json | jq .', '|'],
      ['opsctl webhook list --json > hooks.json', '>'],
      ['opsctl profile list && opsctl webhook list', '&&'],
      ['opsctl profile list; opsctl webhook list', ';'],
      ['opsctl checkout get `cat id`', '`'],
      ['opsctl checkout get $(cat id)', '$('],
    ]) {
      const error = problemOf(`name: s\nsteps:\n  - run: opsctl profile list\n  - run: ${JSON.stringify(run)}\n`)
      expect(error.message, run).toBe(
        `flow.yaml:4:10: steps.1.run: "${op}" is shell syntax, and a step runs one opsctl command line without a shell; check the output with expect (json, stdout, stderr) and pass values on with save`,
      )
    }
  })

  it('lets quoted arguments and ${env:NAME|default} carry those characters', () => {
    const scenario = parseScenario(
      'steps:\n  - run: opsctl checkout void c1 --reason "late; sorry | really" --note \'a>b\' --x ${env:REASON|none} --json\n',
      'f.yaml',
    )
    expect(scenario.steps[0].argv).toEqual(['checkout', 'void', 'c1', '--reason', 'late; sorry | really', '--note', 'a>b', '--x', '${env:REASON|none}', '--json'])
  })

  it('knows the built-in variables ${run.id} and ${uuid}, also inside vars', () => {
    const scenario = parseScenario(
      'vars: {email: "p-${run.id}@example.com"}\nsteps:\n  - run: opsctl users create --email ${email} --ref ${uuid}\n',
      'f.yaml',
    )
    expect(scenario.vars.email).toBe('p-${run.id}@example.com')
    const first = substitute('${uuid}', {}, {})
    expect(first).toMatch(/^[\da-f]{8}-[\da-f]{4}-4[\da-f]{3}-[\da-f]{4}-[\da-f]{12}$/)
    expect(substitute('${uuid}', {}, {})).not.toBe(first)
    expect(problemOf('vars: {uuid: x}\nsteps:\n  - run: opsctl profile list\n').message).toBe(
      'flow.yaml:1:8: uuid is a built-in variable; choose another name',
    )
  })

  it('refuses a var that uses a variable defined after it', () => {
    expect(problemOf('vars: {a: "${b}", b: x}\nsteps:\n  - run: opsctl profile list\n').message).toMatch(
      /^flow\.yaml:1:\d+: vars\.a: variable \$\{b\} is not defined before it/,
    )
  })

  it('says which key is missing and which keys a step has, instead of zod\'s "expected string, received undefined"', () => {
    expect(problemOf('steps:\n  - name: no run here\n').message).toBe(
      'flow.yaml:2:5: missing key "run" at steps.0 (every step runs one opsctl command line); expected name, run, expect, save, timeout',
    )
    expect(problemOf('name: no steps here\n').message).toBe(
      'flow.yaml:1:1: missing key "steps" at the top level (a list of steps, each with a run line); expected name, description, vars, steps',
    )
    expect(problemOf('steps: opsctl profile list\n').message).toBe('flow.yaml:1:8: steps: expected a list, found text "opsctl profile list"')
  })

  it('names the matchers when a check is neither a value nor a matcher', () => {
    expect(problemOf('steps:\n  - run: opsctl x --json\n    expect: {json: {a: {equal: 1}}}\n').message).toBe(
      'flow.yaml:3:25: unknown key "equal" at steps.0.expect.json.a; expected equals, matches, exists, length (or a plain value instead of a map, meaning equals)',
    )
    expect(problemOf('steps:\n  - run: opsctl x --json\n    expect: {json: {a: {}}}\n').message).toBe(
      'flow.yaml:3:24: steps.0.expect.json.a: expected one of equals, matches, exists, length',
    )
    expect(problemOf('steps:\n  - run: opsctl x --json\n    expect: {json: {a: {length: -1}}}\n').message).toMatch(
      /^flow\.yaml:3:\d+: steps\.0\.expect\.json\.a\.length: /,
    )
  })
})

describe('scenario files that cannot leak a credential nor stall the run', () => {
  it('refuses ${env:...} of a credential anywhere in the file, naming its line', () => {
    for (const name of ['OPSCTL_CHECKOUT_SECRET_KEY', 'OPSCTL_CHECKOUT_PUBLIC_KEY', 'opsctl_health_session', 'MY_API_TOKEN', 'DB_PASSWORD', 'client_secret']) {
      const error = problemOf(`name: s\nsteps:\n  - run: opsctl profile list\n  - run: opsctl webhook register --url https://collector.example/\${env:${name}}\n`)
      expect(error.message, name).toMatch(new RegExp(`^flow\\.yaml:4:\\d+: steps\\.1: \\$\\{env:${name}\\} reads a credential; a step gets credentials from its profile`))
    }

    expect(problemOf('vars: {k: "${env:OPSCTL_CHECKOUT_SECRET_KEY|x}"}\nsteps:\n  - run: opsctl webhook register --url https://c.example/${k}\n').message).toMatch(
      /^flow\.yaml:1:\d+: vars\.k: \$\{env:OPSCTL_CHECKOUT_SECRET_KEY\} reads a credential/,
    )
    expect(() => substitute('${env:OPSCTL_CHECKOUT_SECRET_KEY}', {}, {OPSCTL_CHECKOUT_SECRET_KEY: 'sk_live'})).toThrow(/reads a credential/)
    // the same value under an innocent name is refused when the step runs
    expect(() => substitute('${env:CHECKOUT_SK}', {}, {CHECKOUT_SK: 'sk_live_1', OPSCTL_CHECKOUT_SECRET_KEY: 'sk_live_1'})).toThrow(
      /^\$\{env:CHECKOUT_SK\} holds the value of a credential; a step gets credentials from its profile/,
    )
    // other environment variables, OPSCTL_ ones included, still work
    expect(parseScenario('steps:\n  - run: opsctl checkout get ${env:OPSCTL_PROFILE|x} ${env:HOME_TOWN|y}\n', 'f.yaml').steps).toHaveLength(1)
  })

  it('reports an unknown key and an undefined variable in one round, in line order', () => {
    const error = problemOf(
      'steps:\n  - run: opsctl checkout get ${nope} --json\n    expct: {exit: 0}\n  - run: opsctl x\n    save: {id: checkoutId}\n  - run: opsctl checkout get ${id} ${env:MY_TOKEN}\n',
    )
    expect(error.problems.map((p) => [p.line, p.message.split(':')[0]])).toEqual([
      [2, 'steps.0'],
      [3, 'unknown key "expct" at steps.0; expected name, run, expect, save, timeout'],
      [6, 'steps.2'],
    ])
    expect(error.problems[0].message).toMatch(/variable \$\{nope\} is not defined/)
    expect(error.problems[2].message).toMatch(/\$\{env:MY_TOKEN\} reads a credential/)
    // one line each, not crammed into the first one's bracket
    expect(error.message).toBe('3 problems in flow.yaml:')
    expect(error.details).toHaveLength(3)
    expect(error.details[0]).toMatch(/^flow\.yaml:2:\d+: steps\.0: variable \$\{nope\} is not defined/)
    expect(error.details[1]).toMatch(/^flow\.yaml:3:\d+: unknown key "expct" at steps\.0/)
    expect(error.details[2]).toMatch(/^flow\.yaml:6:\d+: steps\.2: .*\$\{env:MY_TOKEN\} reads a credential/)
  })

  it('refuses a step that runs a scenario or starts the sandbox, naming the line', () => {
    for (const [run, command] of [
      ['opsctl scenario run flow.yaml', 'scenario run'],
      ['opsctl scenario:run other.yaml --reporter json', 'scenario run'],
      ['opsctl sandbox start --port 0', 'sandbox start'],
    ]) {
      const error = problemOf(`name: s\nsteps:\n  - run: opsctl profile list\n  - run: ${run}\n`)
      expect(error.message, run).toMatch(new RegExp(`^flow\\.yaml:4:\\d+: steps\\.1\\.run: a step may not run "opsctl ${command}"`))
    }

    expect(parseScenario('steps:\n  - run: opsctl scenario schema\n  - run: opsctl sandbox clock\n', 'f.yaml').steps).toHaveLength(2)
  })

  it('refuses a file over 1 MiB before parsing it', async () => {
    const big = `steps:\n  - run: opsctl profile list\n# ${'x'.repeat(1024 * 1024)}\n`
    expect(() => parseScenario(big, 'big.yaml')).toThrow(/^Scenario big\.yaml is \d+ bytes; a scenario file may have at most 1048576 \(1 MiB\)$/)
    const dir = mkdtempSync(join(tmpdir(), 'opsctl-scenario-'))
    try {
      writeFileSync(join(dir, 'big.yaml'), big)
      await expect(loadScenario(join(dir, 'big.yaml'))).rejects.toMatchObject({exitCode: 2, message: expect.stringMatching(/is \d+ bytes; a scenario file may have at most/)})
    } finally {
      rmSync(dir, {force: true, recursive: true})
    }
  })

  it('refuses aliases that would expand without bound, as invalid YAML', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x]']
    for (const [i, name] of ['b', 'c', 'd', 'e', 'f', 'g'].entries()) {
      const previous = String.fromCodePoint(97 + i)
      levels.push(`${name}: &${name} [${Array.from({length: 9}, () => `*${previous}`).join(', ')}]`)
    }

    const error = problemOf(`${levels.join('\n')}\nsteps:\n  - run: opsctl profile list\n`)
    expect(error.message).toMatch(/^flow\.yaml:1:1: invalid YAML: Excessive alias count/)
  })

  it('reports a pattern that is not a regular expression at its line', () => {
    expect(problemOf('steps:\n  - run: opsctl x --json\n    expect: {stdout: {matches: "(a"}}\n').message).toMatch(
      /^flow\.yaml:3:\d+: steps\.0\.expect\.stdout\.matches: Invalid regular expression/,
    )
  })

  it('stops a catastrophic pattern after its time limit with a clear failure, instead of hanging', () => {
    expect(matchValue(`${'a'.repeat(40)}!`, {matches: '(a+)+$'}, {})).toMatch(/^\/\(a\+\)\+\$\/ took longer than 1 s to match/)
    expect(matchValue('aaa', {matches: '(a+)+$'}, {})).toBeUndefined()
  })
})
