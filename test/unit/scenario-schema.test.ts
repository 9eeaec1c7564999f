import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import ScenarioSchema from '../../src/commands/scenario/schema.js'
import {parseScenario} from '../../src/runtime/scenario/parse.js'
import {scenarioJsonSchema} from '../../src/runtime/scenario/schema.js'
import {type CommandHarness, commandHarness, ROOT} from '../helpers/command.js'

const PUBLISHED = join(ROOT, 'docs/scenario.schema.json')

describe('the JSON Schema of scenario files', () => {
  let h: CommandHarness
  beforeEach(async () => {
    h = await commandHarness()
  })
  afterEach(async () => {
    await h.close()
  })

  it('docs/scenario.schema.json is the schema the code validates with (regenerate: opsctl scenario schema > docs/scenario.schema.json)', () => {
    expect(JSON.parse(readFileSync(PUBLISHED, 'utf8'))).toEqual(scenarioJsonSchema())
  })

  it('opsctl scenario schema prints it, with or without --json, and sends nothing', async () => {
    const published = JSON.parse(readFileSync(PUBLISHED, 'utf8'))
    for (const argv of [[], ['--json']]) {
      const r = await h.run(ScenarioSchema, argv)
      expect(r.code, r.stderr).toBe(0)
      expect(JSON.parse(r.stdout)).toEqual(published)
    }

    expect(h.calls()).toEqual([])
  })

  it('tells editors the keys, the required run line and both forms of a check', () => {
    const schema = scenarioJsonSchema() as any
    expect(schema.required).toEqual(['steps'])
    const step = schema.properties.steps.items
    expect(Object.keys(step.properties)).toEqual(['name', 'run', 'expect', 'save', 'timeout'])
    expect(step.required).toEqual(['run'])
    expect(step.additionalProperties).toBe(false)
    const check = step.properties.expect.properties.json.additionalProperties
    expect(Object.keys(check.anyOf[0].properties)).toEqual(['equals', 'matches', 'exists', 'length'])
    expect(check.anyOf[1].anyOf.map((t: {type: string}) => t.type)).toEqual(['string', 'number', 'boolean', 'null', 'array'])
  })

  it('every example scenario is valid, and points editors at the published schema', () => {
    const examples = readdirSync(join(ROOT, 'examples')).filter((f) => f.endsWith('.yaml'))
    expect(examples.length).toBeGreaterThan(1)
    for (const file of examples) {
      const text = readFileSync(join(ROOT, 'examples', file), 'utf8')
      expect(text.split('\n')[0], file).toBe('# yaml-language-server: $schema=../docs/scenario.schema.json')
      expect(parseScenario(text, file).steps.length, file).toBeGreaterThan(1)
    }
  })
})
