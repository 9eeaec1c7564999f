import * as z from 'zod'

/**
 * The scenario file format (COMMANDS.md): variables, and steps that are opsctl command lines with
 * expectations. Objects are strict so that a misspelt key is reported, not ignored. The
 * descriptions travel into the published JSON Schema (`opsctl scenario schema`), for editors.
 */

export const MATCHER_KEYS = ['equals', 'matches', 'exists', 'length'] as const

const MatcherObject = z
  .strictObject({
    equals: z.unknown().optional().meta({description: `the value, compared as JSON; text may use \${variables}`}),
    matches: z.string().optional().meta({description: 'a regular expression the text or number must match'}),
    exists: z.boolean().optional().meta({description: 'true: a value is there (not null); false: nothing is'}),
    length: z.number().int().min(0).optional().meta({description: 'the length of the list or text'}),
  })
  .refine((m) => Object.keys(m).length > 0, {
    message: `expected one of ${MATCHER_KEYS.join(', ')}`,
    // A map with only unknown keys is already reported as such.
    when: (payload) => payload.issues.length === 0,
  })
  .meta({minProperties: 1})

type MatcherFields = z.infer<typeof MatcherObject>

/** A plain value (`status: CREATED`, `amount: "25.00"`, `tags: []`) means `equals`. */
const PlainValue = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.unknown())])

export const Matcher = z
  .union([MatcherObject, PlainValue.transform((value): MatcherFields => ({equals: value}))])
  .meta({description: `a plain value (same as {equals: value}) or a matcher: ${MATCHER_KEYS.join(', ')}`})

const TextMatcher = z
  .strictObject({
    contains: z.string().optional().meta({description: 'text the stream must contain'}),
    matches: z.string().optional().meta({description: 'a regular expression the stream must match'}),
  })
  .meta({description: 'checks of the text a command printed'})

export const Expectation = z
  .strictObject({
    exit: z.number().int().min(0).max(255).optional().meta({description: 'the exit code (default 0)'}),
    json: z
      .record(z.string(), Matcher)
      .optional()
      .meta({description: 'dot paths into the --json output (`$` is the whole document, `$.0.id` its first item) and what each must hold'}),
    stdout: TextMatcher.optional(),
    stderr: TextMatcher.optional(),
  })
  .meta({description: 'what the step must produce; without it, exit 0'})

// Written with \$ so that lint does not take the ${...} of the file format for a forgotten template string.
const VARS_HELP = `variables, read as \${name}; --var overrides them; a value may use the variables above it. Built in: \${run.id} (one per run), \${uuid} (new at each use), \${env:NAME|default}`

const VariableName = z.string().regex(/^\w+$/, 'expected a variable name (letters, digits, _)')

export const Step = z
  .strictObject({
    name: z.string().min(1).optional().meta({description: 'what the step checks (default: its command line)'}),
    run: z.string().min(1).meta({description: 'one opsctl command line, without a shell: no pipes, redirections or ;'}),
    expect: Expectation.optional(),
    save: z
      .record(VariableName, z.string().min(1))
      .optional()
      .meta({description: 'variables for later steps: name: dot path into the --json output'}),
    timeout: z.number().positive().max(600).optional().meta({description: 'seconds before the step counts as failed (default 120)'}),
  })
  .meta({description: 'an opsctl command line and what it must produce'})

export const Scenario = z
  .strictObject({
    name: z.string().min(1).optional().meta({description: 'shown in reports (default: the file name without extension)'}),
    description: z.string().optional(),
    vars: z
      .record(VariableName, z.union([z.string(), z.number(), z.boolean()]))
      .optional()
      .meta({description: VARS_HELP}),
    steps: z.array(Step).min(1).meta({description: 'run in order; after a failure the rest are skipped'}),
  })
  .meta({title: 'opsctl scenario', description: 'A scenario file for `opsctl scenario run`: opsctl command lines with expectations, in order.'})

export type Matcher = z.infer<typeof Matcher>
export type Step = z.infer<typeof Step>
export type Scenario = z.infer<typeof Scenario>

/** The JSON Schema of scenario files (what editors read), derived from the zod schema above. */
export function scenarioJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(Scenario, {io: 'input', target: 'draft-2020-12'})
}
