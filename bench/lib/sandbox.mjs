/**
 * A real sandbox process for a benchmark: `sandbox start --port 0 --json` of `bin`, its origin once
 * it listens, and its control token (from the file it writes in its config folder: a temporary one,
 * removed when it exits, unless `env` names one).
 */
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createInterface} from 'node:readline'

export async function startSandboxProcess({bin, cwd, env, args = []}) {
  const ownDir = env.OPSCTL_CONFIG_DIR ? undefined : mkdtempSync(join(tmpdir(), 'opsctl-bench-sandbox-'))
  const child = spawn(process.execPath, [bin, 'sandbox', 'start', '--port', '0', '--json', ...args], {
    cwd,
    env: ownDir ? {...env, OPSCTL_CONFIG_DIR: ownDir} : env,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  if (ownDir) child.once('exit', () => rmSync(ownDir, {force: true, recursive: true}))
  const line = await new Promise((ok, fail) => {
    createInterface({input: child.stdout}).once('line', ok)
    child.once('exit', (code) => fail(new Error(`the sandbox exited with ${code} before it listened`)))
  })
  const info = JSON.parse(line)
  const {token} = JSON.parse(readFileSync(info.controlTokenFile, 'utf8'))
  return {child, origin: info.origin, token}
}
