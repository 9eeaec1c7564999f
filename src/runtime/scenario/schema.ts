import {z} from 'zod'

/**
 * The scenario file format (COMMANDS.md): a name, variables, and steps that are opsctl command
 * lines with expectations. Objects are strict so that a misspelt key is reported, not ignored.
 */
export const Matcher = z
  .strictObject({
    equals: z.unknown().optional(),
    matches: z.string().optional(),
    exists: z.boolean().optional(),
    length: z.number().int().min(0).optional(),
  })
  .refine((m) => Object.keys(m).length > 0, {message: 'expected one of equals, matches, exists, length'})

const TextMatcher = z.strictObject({contains: z.string().optional(), matches: z.string().optional()})

export const Expectation = z.strictObject({
  exit: z.number().int().min(0).max(255).optional(),
  json: z.record(z.string(), Matcher).optional(),
  stdout: TextMatcher.optional(),
  stderr: TextMatcher.optional(),
})

export const Step = z.strictObject({
  name: z.string().min(1).optional(),
  run: z.string().min(1),
  expect: Expectation.optional(),
  save: z.record(z.string().regex(/^\w+$/, 'expected a variable name (letters, digits, _)'), z.string().min(1)).optional(),
  timeout: z.number().positive().max(600).optional(),
})

export const Scenario = z.strictObject({
  name: z.string().min(1),
  description: z.string().optional(),
  vars: z.record(z.string().regex(/^\w+$/), z.union([z.string(), z.number(), z.boolean()])).optional(),
  steps: z.array(Step).min(1),
})

export type Matcher = z.infer<typeof Matcher>
export type Step = z.infer<typeof Step>
export type Scenario = z.infer<typeof Scenario>
