import {readFile} from 'node:fs/promises'
import {parseArgsStringToArgv} from 'string-argv'
import {type Document, isMap, isPair, isScalar, LineCounter, parseDocument} from 'yaml'

import {UsageError} from '../../errors.js'
import {Scenario} from './schema.js'
import {variableRefs} from './vars.js'

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

/** A scenario file that cannot run: every problem with its line, checked before any step runs. */
export class ScenarioFileError extends UsageError {
  constructor(
    readonly file: string,
    readonly problems: Problem[],
  ) {
    const [first] = problems
    const more =
      problems.length > 1
        ? ` (+${problems.length - 1} more problem${problems.length > 2 ? 's' : ''}: ${problems
            .slice(1, 4)
            .map((p) => `line ${p.line}: ${p.message}`)
            .join('; ')})`
        : ''
    super(`${file}:${first.line}:${first.column}: ${first.message}${more}`, ['Fix the file; nothing was run'])
  }
}

/** Reads, validates and resolves a scenario; `cliVars` (from --var) override the file's vars. */
export async function loadScenario(file: string, cliVars: Record<string, string> = {}): Promise<ParsedScenario> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    throw new UsageError(`Cannot read scenario ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }

  return parseScenario(text, file, cliVars)
}

export function parseScenario(text: string, file: string, cliVars: Record<string, string> = {}): ParsedScenario {
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
  const parsed = Scenario.safeParse(doc.toJS())
  if (!parsed.success) {
    throw new ScenarioFileError(
      file,
      parsed.error.issues.map((issue) => {
        if (issue.code === 'unrecognized_keys') {
          return {
            ...at(issue.path, issue.keys[0]),
            message: `unknown key "${issue.keys.join('", "')}" at ${describePath(issue.path)}; expected ${expectedKeys(issue.path)}`,
          }
        }

        return {...at(issue.path), message: `${describePath(issue.path)}: ${issue.message}`}
      }),
    )
  }

  const scenario = parsed.data
  const vars: Record<string, string> = {
    ...Object.fromEntries(Object.entries(scenario.vars ?? {}).map(([k, v]) => [k, String(v)])),
    ...cliVars,
  }
  const known = new Set(Object.keys(vars))
  const problems: Problem[] = []
  const steps = scenario.steps.map((step, i) => {
    const argv = parseArgsStringToArgv(step.run)
    const runPos = at(['steps', i, 'run'])
    if (argv[0] !== 'opsctl')
      problems.push({...runPos, message: `steps.${i}.run: expected an opsctl command line, got "${step.run.slice(0, 40)}"`})
    const texts = [
      step.run,
      ...Object.values(step.expect?.json ?? {}).flatMap((m) => [m.matches, typeof m.equals === 'string' ? m.equals : undefined]),
    ]
    for (const ref of texts.flatMap((t) => (t ? variableRefs(t) : []))) {
      if (!ref.startsWith('env:') && !known.has(ref)) {
        problems.push({
          ...runPos,
          message: `steps.${i}: variable \${${ref}} is not defined; expected it in vars, --var or the save of an earlier step`,
        })
      }
    }

    for (const name of Object.keys(step.save ?? {})) known.add(name)
    return {argv: argv.slice(1), line: runPos.line, name: step.name ?? step.run.replace(/^opsctl\s+/, ''), raw: step}
  })
  if (problems.length > 0) throw new ScenarioFileError(file, problems)
  return {file, name: scenario.name, steps, vars}
}

const KEYS: Record<string, string> = {
  expect: 'exit, json, stdout, stderr',
  matcher: 'equals, matches, exists, length',
  root: 'name, description, vars, steps',
  step: 'name, run, expect, save, timeout',
}

function expectedKeys(path: readonly PropertyKey[]): string {
  if (path.length === 0) return KEYS.root
  if (path.length === 2 && path[0] === 'steps') return KEYS.step
  if (path.at(-1) === 'expect') return KEYS.expect
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
