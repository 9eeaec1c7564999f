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

/** Reads all of stdin as text, at most 16 MiB (for --password-stdin, --secret-key-stdin); errors never quote it. */
export async function readStdin(): Promise<string> {
  const {INPUT_LIMIT_BYTES, readBoundedText} = await import('../runtime/bounded-read.js')
  return readBoundedText('-', {limit: INPUT_LIMIT_BYTES})
}
