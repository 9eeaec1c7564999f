/** A real sandbox process for a benchmark: `sandbox start --port 0 --json` of `bin`, and its origin once it listens. */
import {spawn} from 'node:child_process'
import {createInterface} from 'node:readline'

export async function startSandboxProcess({bin, cwd, env, args = []}) {
  const child = spawn(process.execPath, [bin, 'sandbox', 'start', '--port', '0', '--json', ...args], {cwd, env, stdio: ['ignore', 'pipe', 'inherit']})
  const line = await new Promise((ok, fail) => {
    createInterface({input: child.stdout}).once('line', ok)
    child.once('exit', (code) => fail(new Error(`the sandbox exited with ${code} before it listened`)))
  })
  return {child, origin: JSON.parse(line).origin}
}
