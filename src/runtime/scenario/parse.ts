import {stat} from 'node:fs/promises'
import {basename, extname} from 'node:path'
import {parseArgsStringToArgv} from 'string-argv'
import {type Document, isMap, isPair, isScalar, LineCounter, parseDocument} from 'yaml'
import * as z from 'zod'

import {UsageError} from '../../errors.js'
import {readBoundedText} from '../bounded-read.js'
import {patternProblem} from './pattern.js'
import {MATCHER_KEYS, Scenario, Step} from './schema.js'
import {BUILT_IN_VARIABLES, credentialRefused, envName, isCredentialEnvName, variableRefs} from './vars.js'

/** A scenario file is a few hundred lines; a larger one is refused before it is read into memory. */
export const MAX_SCENARIO_BYTES = 1024 * 1024

/** Commands a step may not run: one that never returns, and one that would run scenarios from a scenario. */
const REFUSED_STEP_COMMANDS: ReadonlyMap<string, string> = new Map([
  ['sandbox start', 'runs until it is stopped, so the step would never end; start the sandbox before the scenario'],
  ['scenario run', 'would run a scenario inside a scenario; list its steps in this file instead'],
])

export interface ParsedStep {
  name: string
  argv: string[]
  line: number
  raw: Scenario['steps'][number]
}

export interface ParsedScenario {
  file: string
  name: string
  vars: Record<string, string>
  steps: ParsedStep[]
}

interface Problem {
  line: number
  column: number
  message: string
}

const MAX_SHOWN_PROBLEMS = 10

/** A scenario file that cannot run: every problem with its line, checked before any step runs. */
export class ScenarioFileError extends UsageError {
  constructor(
    readonly file: string,
    readonly problems: Problem[],
  ) {
    const [first] = problems
    const at = (p: Problem) => `${file}:${p.line}:${p.column}: ${p.message}`
    // One problem is the message; several are one line each, so each can be found and fixed.
    super(problems.length === 1 ? at(first) : `${problems.length} problems in ${file}:`, ['Fix the file; nothing was run'])
    if (problems.length > 1) this.details.push(...problems.slice(0, MAX_SHOWN_PROBLEMS).map((p) => at(p)))
    if (problems.length > MAX_SHOWN_PROBLEMS) this.details.push(`and ${problems.length - MAX_SHOWN_PROBLEMS} more`)
  }
}

/** Reads, validates and resolves a scenario; `cliVars` (from --var) override the file's vars. */
export async function loadScenario(file: string, cliVars: Record<string, string> = {}): Promise<ParsedScenario> {
  let text: string
  try {
    const size = (await stat(file)).size
    if (size > MAX_SCENARIO_BYTES) throw tooLarge(file, size)
    // counted as it streams too: a FIFO or a device has no size to look at
    text = await readBoundedText(file, {limit: MAX_SCENARIO_BYTES, name: `scenario ${file}`})
  } catch (error) {
    if (error instanceof UsageError) throw error
    throw new UsageError(`Cannot read scenario ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }

  return parseScenario(text, file, cliVars)
}

function tooLarge(file: string, bytes: number): UsageError {
  return new UsageError(`Scenario ${file} is ${bytes} bytes; a scenario file may have at most ${MAX_SCENARIO_BYTES} (1 MiB)`, [
    'Split it into several files; nothing was run',
  ])
}

export function parseScenario(text: string, file: string, cliVars: Record<string, string> = {}): ParsedScenario {
  const bytes = Buffer.byteLength(text)
  if (bytes > MAX_SCENARIO_BYTES) throw tooLarge(file, bytes)
  const lines = new LineCounter()
  const doc = parseDocument(text, {lineCounter: lines})
  if (doc.errors.length > 0) {
    throw new ScenarioFileError(
      file,
      doc.errors.map((e) => ({
        column: e.linePos?.[0].col ?? 1,
        line: e.linePos?.[0].line ?? 1,
        message: `invalid YAML: ${e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')}`,
      })),
    )
  }

  const at = (path: readonly PropertyKey[], key?: string): {column: number; line: number} => positionOf(doc, lines, path, key)
  let raw: unknown
  try {
    // The yaml library refuses aliases that would expand without bound (a "billion laughs" file).
    raw = doc.toJS()
  } catch (error) {
    throw new ScenarioFileError(file, [{column: 1, line: 1, message: `invalid YAML: ${(error as Error).message}`}])
  }

  const parsed = Scenario.safeParse(raw)
  // Every problem in one round: after the file's shape, the checks below run over what did parse.
  const problems: Problem[] = parsed.success
    ? []
    : parsed.error.issues.flatMap((issue) => describeIssue(issue, raw)).map(({key, message, path}) => ({...at(path, key), message}))
  const scenario = parsed.success ? parsed.data : partsThatParse(raw)
  for (const [name, where] of [
    ...Object.keys(scenario.vars ?? {}).map((k) => [k, at(['vars'], k)] as const),
    ...Object.keys(cliVars).map((k) => [k, {column: 1, line: 1}] as const),
  ]) {
    if (BUILT_IN_VARIABLES.has(name)) problems.push({...where, message: `${name} is a built-in variable; choose another name`})
  }

  // Keyed by names from the file: no inherited keys (a variable named toString or __proto__ is just a variable).
  const vars: Record<string, string> = Object.assign(
    Object.create(null),
    Object.fromEntries(Object.entries(scenario.vars ?? {}).map(([k, v]) => [k, String(v)])),
    cliVars,
  )
  const known = new Set(BUILT_IN_VARIABLES)
  for (const [name, value] of Object.entries(vars)) {
    const where = Object.hasOwn(cliVars, name) ? {column: 1, line: 1} : at(['vars', name])
    for (const ref of variableRefs(value)) {
      const env = envName(ref)
      if (env !== undefined && isCredentialEnvName(env)) {
        problems.push({...where, message: `vars.${name}: ${credentialRefused(env)}`})
      } else if (env === undefined && !known.has(ref)) {
        problems.push({
          ...where,
          message: `vars.${name}: variable \${${ref}} is not defined before it; a value may use \${run.id}, \${uuid}, \${env:NAME|default} and the variables above it`,
        })
      }
    }

    known.add(name)
  }

  const steps = scenario.steps.map((step, i) => {
    if (step === undefined) {
      // A step that did not parse (its problems are above) still defines what it saves.
      for (const name of savedNames(raw, i)) known.add(name)
      return undefined
    }

    const argv = parseArgsStringToArgv(step.run)
    const runPos = at(['steps', i, 'run'])
    const shell = shellSyntax(step.run)
    if (shell) {
      problems.push({
        ...runPos,
        message: `steps.${i}.run: "${shell}" is shell syntax, and a step runs one opsctl command line without a shell; check the output with expect (json, stdout, stderr) and pass values on with save`,
      })
    } else if (argv[0] !== 'opsctl') {
      problems.push({...runPos, message: `steps.${i}.run: expected an opsctl command line, got "${step.run.slice(0, 40)}"`})
    } else {
      const command = commandOf(argv.slice(1))
      const why = REFUSED_STEP_COMMANDS.get(command)
      if (why) problems.push({...runPos, message: `steps.${i}.run: a step may not run "opsctl ${command}": it ${why}`})
    }

    const expect = step.expect ?? {}
    const texts = [
      step.run,
      ...Object.values(expect.json ?? {}).flatMap((m) => [m.matches, typeof m.equals === 'string' ? m.equals : undefined]),
      ...[expect.stdout, expect.stderr].flatMap((m) => [m?.contains, m?.matches]),
    ]
    for (const ref of texts.flatMap((t) => (t ? variableRefs(t) : []))) {
      const env = envName(ref)
      if (env !== undefined && isCredentialEnvName(env)) {
        problems.push({...runPos, message: `steps.${i}: ${credentialRefused(env)}`})
      } else if (env === undefined && !known.has(ref)) {
        problems.push({
          ...runPos,
          message: `steps.${i}: variable \${${ref}} is not defined; expected it in vars, --var or the save of an earlier step (built in: \${run.id}, \${uuid}, \${env:NAME|default})`,
        })
      }
    }

    const patterns = [
      ...Object.entries(expect.json ?? {}).map(([path, m]) => [['json', path], m.matches] as const),
      ...(['stdout', 'stderr'] as const).map((stream) => [[stream], expect[stream]?.matches] as const),
    ]
    for (const [path, source] of patterns) {
      const problem = source === undefined || source.includes('${') ? undefined : patternProblem(source)
      if (problem) problems.push({...at(['steps', i, 'expect', ...path, 'matches']), message: `steps.${i}.expect.${path.join('.')}.matches: ${problem}`})
    }

    for (const name of Object.keys(step.save ?? {})) {
      if (BUILT_IN_VARIABLES.has(name)) problems.push({...at(['steps', i, 'save'], name), message: `steps.${i}.save: ${name} is a built-in variable; choose another name`})
      known.add(name)
    }

    return {argv: argv.slice(1), line: runPos.line, name: step.name ?? step.run.replace(/^opsctl\s+/, ''), raw: step}
  })
  if (problems.length > 0) throw new ScenarioFileError(file, problems.sort((a, b) => a.line - b.line || a.column - b.column))
  return {file, name: scenario.name ?? basename(file, extname(file)), steps: steps.filter((step) => step !== undefined), vars}
}

/** A step with its misspelt keys left out, so that its other problems are found in the same round. */
const StepWithoutUnknownKeys = z.object(Step.shape)

/** A file that did not parse as a whole: its vars if they parse, and each step that parses on its own (undefined for the others). */
function partsThatParse(raw: unknown): {name?: string; steps: (Step | undefined)[]; vars?: Scenario['vars']} {
  const object = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>) : {}
  const steps = Array.isArray(object.steps) ? (object.steps as unknown[]) : []
  return {
    steps: steps.map((step) => StepWithoutUnknownKeys.safeParse(step).data),
    vars: Scenario.shape.vars.safeParse(object.vars).data,
  }
}

function savedNames(raw: unknown, i: number): string[] {
  const save = valueAtPath(raw, ['steps', i, 'save'])
  return save !== null && typeof save === 'object' && !Array.isArray(save) ? Object.keys(save) : []
}

/** The command a step's arguments name, as `topic command` (oclif also takes `topic:command`). */
function commandOf(args: readonly string[]): string {
  const words = args.flatMap((a) => a.split(':')).filter((w) => w !== '')
  const end = words.findIndex((w) => w.startsWith('-'))
  return (end === -1 ? words : words.slice(0, end)).slice(0, 2).join(' ')
}

/**
 * The first piece of shell syntax in a command line, outside quotes and `${...}` references: a
 * step runs without a shell, so `| jq`, `> file` or `&& next` would reach opsctl as arguments.
 */
export function shellSyntax(run: string): string | undefined {
  const bare = run.replaceAll(/\$\{[^}]*\}/g, 'v').replaceAll(/"(?:[^"\\]|\\.)*"|'[^']*'/g, 'q')
  return /\|\||&&|\||;|>>|>|<|`|\$\(|&/.exec(bare)?.[0]
}

interface Described {
  path: readonly PropertyKey[]
  key?: string
  message: string
}

const TYPE_WORDS: Record<string, string> = {
  array: 'a list',
  boolean: 'true or false',
  int: 'a whole number',
  number: 'a number',
  object: 'a map of keys',
  string: 'text',
}

/** A zod issue in the words of the file format: which keys, matchers or kinds of value fit there. */
function describeIssue(issue: z.core.$ZodIssue, raw: unknown): Described[] {
  const {path} = issue
  const where = describePath(path)
  const value = valueAtPath(raw, path)
  switch (issue.code) {
    case 'unrecognized_keys': {
      return [{key: issue.keys[0], message: `unknown key "${issue.keys.join('", "')}" at ${where}; expected ${expectedKeys(path)}`, path}]
    }

    case 'invalid_union': {
      if (isMatcherPath(path)) {
        // A map here is a matcher: report what its own schema said about it (an unknown matcher, say).
        if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
          return (issue.errors[0] ?? []).flatMap((inner) => describeIssue({...inner, path: [...path, ...inner.path]}, raw))
        }

        return [{message: `${where}: expected a value (the same as {equals: value}) or a matcher: ${MATCHER_KEYS.join(', ')}`, path}]
      }

      return [{message: `${where}: expected text, a number or true/false, found ${shown(value)}`, path}]
    }

    case 'invalid_type': {
      if (value === undefined) {
        const key = String(path.at(-1))
        const parent = path.slice(0, -1)
        return [{message: `missing key "${key}" at ${describePath(parent)}${REQUIRED_WHY[key] ?? ''}; expected ${expectedKeys(parent)}`, path: parent}]
      }

      const expected = issue.expected === 'object' ? `a map of keys (${expectedKeys(path)})` : (TYPE_WORDS[issue.expected] ?? issue.expected)
      return [{message: `${where}: expected ${expected}, found ${shown(value)}`, path}]
    }

    case 'too_small': {
      if (issue.origin === 'array') return [{message: `${where}: expected at least ${issue.minimum} item(s)`, path}]
      if (issue.origin === 'string') return [{message: `${where}: must not be empty`, path}]
      return [{message: `${where}: ${issue.message}`, path}]
    }

    case 'invalid_key': {
      return issue.issues.map((inner) => ({message: `${where}: "${String(inner.input ?? '')}" ${inner.message}`, path}))
    }

    default: {
      return [{message: `${where}: ${issue.message}`, path}]
    }
  }
}

const REQUIRED_WHY: Record<string, string> = {
  run: ' (every step runs one opsctl command line)',
  steps: ' (a list of steps, each with a run line)',
}

function isMatcherPath(path: readonly PropertyKey[]): boolean {
  return path.length === 5 && path[0] === 'steps' && path[2] === 'expect' && path[3] === 'json'
}

function valueAtPath(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined
    current = (current as Record<PropertyKey, unknown>)[key]
  }

  return current
}

function shown(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'object') return 'a map'
  if (typeof value === 'string') return `text "${value.slice(0, 40)}"`
  return `${typeof value} ${String(value)}`
}

const KEYS: Record<string, string> = {
  expect: 'exit, json, stdout, stderr',
  matcher: `${MATCHER_KEYS.join(', ')} (or a plain value instead of a map, meaning equals)`,
  root: 'name, description, vars, steps',
  step: 'name, run, expect, save, timeout',
  text: 'contains, matches',
}

function expectedKeys(path: readonly PropertyKey[]): string {
  if (path.length === 0) return KEYS.root
  if (path.length === 2 && path[0] === 'steps') return KEYS.step
  if (path.at(-1) === 'expect') return KEYS.expect
  if (path.at(-1) === 'stdout' || path.at(-1) === 'stderr') return KEYS.text
  if (path.includes('json')) return KEYS.matcher
  return 'a known key'
}

function describePath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? 'the top level' : path.map(String).join('.')
}

/** Line and column of the node at `path` (of the key `key` inside it, when given). */
function positionOf(doc: Document, lines: LineCounter, path: readonly PropertyKey[], key?: string): {column: number; line: number} {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth) as unknown[], true)
    if (!node || typeof node !== 'object') continue
    if (key !== undefined && depth === path.length && isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === key)
      if (pair && isScalar(pair.key) && pair.key.range) return toPos(lines, pair.key.range[0])
    }

    const range = (node as {range?: [number, number, number]}).range
    if (range) return toPos(lines, range[0])
  }

  return {column: 1, line: 1}
}

function toPos(lines: LineCounter, offset: number): {column: number; line: number} {
  const {col, line} = lines.linePos(offset)
  return {column: col, line}
}
