/**
 * `--query`: a JMESPath expression (as in the AWS CLI) applied to a command's JSON document before
 * it is rendered in any format. The library is loaded only when a query is given.
 */
import type {JSONValue} from '@jmespath-community/jmespath'

/** Throws the parser's message for a bad expression (the flag's parse step: exit 2, nothing sent). */
export async function checkQuery(expression: string): Promise<string> {
  const {compile} = await import('@jmespath-community/jmespath')
  try {
    compile(expression)
  } catch (error) {
    throw new Error(`--query: ${(error as Error).message}`)
  }

  return expression
}

export async function applyQuery(document: unknown, expression: string): Promise<unknown> {
  const {search} = await import('@jmespath-community/jmespath')
  // A round trip through JSON gives the library plain JSON values (no undefined, no class instances):
  // structuredClone would keep both.
  // eslint-disable-next-line unicorn/prefer-structured-clone
  return search(JSON.parse(JSON.stringify(document ?? null)) as JSONValue, expression)
}
