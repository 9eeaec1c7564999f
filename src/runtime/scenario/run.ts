import type {Config} from '@oclif/core'

import type {StepResult} from '../report.js'
import type {ParsedScenario, ParsedStep} from './parse.js'
import type {Matcher} from './schema.js'

import {AUDIT_RUN_ENV} from '../../audit/log.js'
import {registerArgv} from '../../http/secrets/sources.js'
import {getPath} from '../../services/dot-path.js'
import {type InProcessResult, runInProcess} from '../in-process.js'
import {matchesPattern} from './pattern.js'
import {newRunId, substitute} from './vars.js'

export interface ScenarioRunOptions {
  /** the CLI's loaded configuration: each step runs as its command line in this process */
  config: Config
  env?: NodeJS.ProcessEnv
  /** set for every step (the scenario command's --profile and --timeout, as OPSCTL_* variables) */
  stepEnv?: Record<string, string>
  onStep?: (result: StepResult) => void
}

type Outcome = InProcessResult

/** Runs the steps in order; after a failure the remaining steps are reported as skipped. */
export async function runScenario(scenario: ParsedScenario, options: ScenarioRunOptions): Promise<StepResult[]> {
  const env = options.env ?? process.env
  const vars: Record<string, string> = Object.assign(Object.create(null), {'run.id': newRunId()})
  // A value may use the built-ins and the variables before it: `email: patient-${run.id}@example.com`.
  for (const [name, value] of Object.entries(scenario.vars)) vars[name] = substitute(value, vars, env)
  const results: StepResult[] = []
  let failed = false
  // A step's command line may carry a password: it is shown as the step's name, and in what the step prints.
  for (const step of scenario.steps) registerArgv(step.argv)
  const names = new Set<string>()
  for (const step of scenario.steps) {
    const result = failed ? skipped(scenario, step) : await runStep(scenario, step, vars, options.config, env, options.stepEnv)
    if (result.outcome === 'failed') failed = true
    // A report (JUnit) tells its cases apart by name: the variables known by then, and the line when two still read the same.
    result.name = shownName(step, vars, env)
    if (names.has(result.name)) result.name = `${result.name} (line ${step.line})`
    names.add(result.name)
    results.push(result)
    options.onStep?.(result)
  }

  return results
}

/** The step's name with the variables known by then put in (`checkout get ${id}`: `checkout get chk_...`); as written when one is not known yet. */
function shownName(step: ParsedStep, vars: Record<string, string>, env: NodeJS.ProcessEnv): string {
  try {
    return substitute(step.name, vars, env)
  } catch {
    return step.name
  }
}

function skipped(scenario: ParsedScenario, step: ParsedStep): StepResult {
  return {durationMs: 0, message: 'an earlier step failed', name: step.name, outcome: 'skipped', suite: scenario.name}
}

async function runStep(
  scenario: ParsedScenario,
  step: ParsedStep,
  vars: Record<string, string>,
  config: Config,
  env: NodeJS.ProcessEnv,
  stepEnv: Record<string, string> = {},
): Promise<StepResult> {
  const started = performance.now()
  const base = {line: step.line, name: step.name, operation: commandId(config, step.argv), suite: scenario.name}
  let argv: string[]
  try {
    argv = step.argv.map((a) => substitute(a, vars, env))
    registerArgv(argv)
  } catch (error) {
    return {...base, durationMs: 0, message: (error as Error).message, outcome: 'failed'}
  }

  const timeoutMs = (step.raw.timeout ?? 120) * 1000
  const out = await runInProcess(config, argv, {env: {CI: env.CI ?? 'true', [AUDIT_RUN_ENV]: 'scenario', ...stepEnv}, timeoutMs})
  const durationMs = Math.round(performance.now() - started)
  if (out.timedOut) return {...base, durationMs, message: `did not finish within ${timeoutMs / 1000} s; its outcome is unknown`, outcome: 'failed'}
  const json = parseJson(out.stdout) ?? (out.code === 0 ? undefined : parseJson(out.stderr))
  const requestId = firstString(getPath(json, 'requestId'), getPath(json, 'error.requestId'))
  const wantExit = step.raw.expect?.exit ?? 0
  // An unexpected exit is the failure: the command's own words say why; checks of its output would only add noise.
  if (out.code !== wantExit) {
    const said = errorMessage(out.stderr)
    return {...base, durationMs, exit: {code: out.code, expected: wantExit}, outcome: 'failed', requestId, ...(said ? {message: said} : {})}
  }

  const problems = check(step, out, json, vars, env)
  if (problems.length > 0) return {...base, durationMs, message: problems.join('; '), outcome: 'failed', requestId}

  for (const [name, path] of Object.entries(step.raw.save ?? {})) {
    const value = valueAt(json, path)
    if (value === undefined) return {...base, durationMs, message: `save ${name}: nothing at ${path}`, outcome: 'failed', requestId}
    vars[name] = typeof value === 'string' ? value : JSON.stringify(value)
  }

  return {...base, durationMs, outcome: 'passed', requestId}
}

function check(step: ParsedStep, out: Outcome, json: unknown, vars: Record<string, string>, env: NodeJS.ProcessEnv): string[] {
  const expect = step.raw.expect ?? {}
  const problems: string[] = []

  for (const [stream, matcher] of [
    ['stdout', expect.stdout],
    ['stderr', expect.stderr],
  ] as const) {
    if (!matcher) continue
    const text = out[stream]
    if (matcher.contains !== undefined && !text.includes(substitute(matcher.contains, vars, env)))
      problems.push(`${stream} does not contain "${matcher.contains}"`)
    if (matcher.matches !== undefined) {
      const problem = patternFailure(() => matchesPattern(substitute(matcher.matches!, vars, env), text))
      if (problem !== undefined) problems.push(problem || `${stream} does not match /${matcher.matches}/`)
    }
  }

  if (expect.json) {
    if (json === undefined) return [...problems, 'the output is not JSON (add --json to the command)']
    for (const [path, matcher] of Object.entries(expect.json)) {
      const problem = matchValue(valueAt(json, path), matcher, vars, env)
      if (problem) problems.push(`${path}: ${problem}`)
    }
  }

  return problems
}

/** A dot path into a step's JSON output; `$` is the whole document (a top-level list, say), `$.0.id` a path from it. */
export function valueAt(document: unknown, path: string): unknown {
  if (path === '$') return document
  return getPath(document, path.startsWith('$.') ? path.slice(2) : path)
}

/** One matcher against one value; undefined when it holds, else what was expected. */
export function matchValue(
  value: unknown,
  matcher: Matcher,
  vars: Record<string, string>,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const shown = value === undefined ? 'nothing' : JSON.stringify(value)?.slice(0, 80)
  if (matcher.exists !== undefined && (value !== undefined && value !== null) !== matcher.exists) {
    return matcher.exists ? 'expected a value, found nothing' : `expected nothing, found ${shown}`
  }

  if (matcher.equals !== undefined) {
    const want = typeof matcher.equals === 'string' ? substitute(matcher.equals, vars, env) : matcher.equals
    if (JSON.stringify(value) !== JSON.stringify(want)) return `expected ${JSON.stringify(want)}, found ${shown}`
  }

  if (matcher.matches !== undefined) {
    if (typeof value !== 'string' && typeof value !== 'number') return `expected text matching /${matcher.matches}/, found ${shown}`
    const source = substitute(matcher.matches, vars, env)
    const problem = patternFailure(() => matchesPattern(source, String(value)))
    if (problem !== undefined) return problem || `expected to match /${matcher.matches}/, found ${shown}`
  }

  if (matcher.length !== undefined) {
    const length = Array.isArray(value) || typeof value === 'string' ? value.length : undefined
    if (length !== matcher.length) return `expected length ${matcher.length}, found ${length === undefined ? shown : length}`
  }

  return undefined
}

/** undefined when the pattern matched, '' when it did not, else why it could not be tried (invalid, too slow). */
function patternFailure(match: () => boolean): string | undefined {
  try {
    return match() ? undefined : ''
  } catch (error) {
    return (error as Error).message
  }
}

/**
 * The command's error message, as BaseCommand.catch printed it: the `message` of the
 * `{"error": ...}` document under --json, else the text of its `Error: ...` line.
 */
export function errorMessage(stderr: string): string | undefined {
  const document = parseJson(stderr)
  const message = getPath(document, 'error.message')
  if (typeof message === 'string') return message
  const line = stderr.split('\n').find((l) => l.startsWith('Error: '))
  return line?.slice('Error: '.length).trim() || undefined
}

function parseJson(text: string): unknown {
  const trimmed = text.trim()
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined
  try {
    return JSON.parse(trimmed)
  } catch {
    return undefined
  }
}

function firstString(...values: unknown[]): string | undefined {
  for (const v of values) if (typeof v === 'string' && v) return v
  return undefined
}

/** The command a step runs, as `checkout create`: the longest run of leading words that names one (oclif also takes `checkout:create`). */
function commandId(config: Config, args: readonly string[]): string | undefined {
  const words = args.flatMap((a) => (a.startsWith('-') ? [a] : a.split(':'))).filter((w) => w !== '')
  const end = words.findIndex((w) => w.startsWith('-'))
  const leading = end === -1 ? words : words.slice(0, end)
  for (let n = Math.min(leading.length, 3); n > 0; n--) {
    if (config.findCommand(leading.slice(0, n).join(':'))) return leading.slice(0, n).join(' ')
  }

  return undefined
}
