import {CancelledError, UsageError} from '../errors.js'
import {registerSecret} from '../http/secrets/registry.js'

/** Prompts run only for a person at a terminal: never in CI, never with piped input or output. */
export function isInteractive(): boolean {
  const ci = process.env.CI
  if (ci && ci !== 'false' && ci !== '0') return false
  return Boolean(process.stdin.isTTY && process.stderr.isTTY)
}

function requireTty(missing: string): void {
  if (!isInteractive()) throw new UsageError(`Missing ${missing}; no terminal to ask in`)
}

export async function askText(message: string, missing: string, validate?: (v: string) => string | true): Promise<string> {
  requireTty(missing)
  const {input} = await import('@inquirer/prompts')
  return cancellable(input({message, validate: validate ?? ((v) => (v.trim() ? true : 'required'))}, {output: process.stderr}))
}

/** Hidden input; the answer is never echoed. */
export async function askSecret(message: string, missing: string): Promise<string> {
  requireTty(missing)
  const {password} = await import('@inquirer/prompts')
  const answer = await cancellable(password({message, mask: true, validate: (v) => (v ? true : 'required')}, {output: process.stderr}))
  registerSecret(answer)
  return answer
}

export async function askConfirm(message: string): Promise<boolean> {
  const {confirm} = await import('@inquirer/prompts')
  return cancellable(confirm({message, default: false}, {output: process.stderr}))
}

/** The resource id typed back, for destructive changes on production profiles. */
export async function askTypeBack(message: string, expected: string): Promise<boolean> {
  const {input} = await import('@inquirer/prompts')
  const answer = await cancellable(input({message}, {output: process.stderr}))
  return answer.trim() === expected
}

/** Ctrl-C at a prompt (inquirer's ExitPromptError, or its abort) ends the command with exit 130, nothing sent. */
async function cancellable<T>(answer: Promise<T>): Promise<T> {
  try {
    return await answer
  } catch (error) {
    const {name} = error as Error
    if (name === 'ExitPromptError' || name === 'AbortPromptError') throw new CancelledError()
    throw error
  }
}

/** Reads all of stdin (for --password-stdin, --secret-key-stdin, --data -). */
export async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError('Expected input on stdin, but stdin is a terminal; pipe it in')
  // Chunks are Buffers, or strings once something has called setEncoding() on stdin; Buffer.concat
  // would reject those with an error message that quotes the input, a secret for --secret-key-stdin.
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer))
  return Buffer.concat(chunks).toString('utf8')
}
