/**
 * Whose sandbox is it? A sandbox profile whose port answers, from a config folder that did not
 * start that sandbox (another user's, another folder's), still works, and a person at a terminal
 * is told once, with how to start their own. The folder that started it hears nothing; nor does a
 * script (stderr not a terminal). Real processes: the sandbox, and the CLI in a pseudo-terminal.
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCli, runInTerminal, type Sandbox, startSandbox} from './harness.js'

const NOTE = 'was not started from this config folder'

let sandbox: Sandbox
/** A config folder that did not start the sandbox. */
let other: string

/** A sandbox profile in `configDir` pointing at the sandbox, made the active one. */
async function addSandboxProfile(configDir: string): Promise<void> {
  const argv = ['profile', 'add', 'local', '--env', 'sandbox', '--health-url', sandbox.healthUrl, '--checkout-url', sandbox.checkoutUrl]
  const r = await runCli([...argv, '--public-key', sandbox.publicKey, '--secret-key-stdin', '--use'], {env: {OPSCTL_CONFIG_DIR: configDir}, input: sandbox.secretKey})
  expect(r.code, r.stderr).toBe(0)
}

beforeAll(async () => {
  sandbox = await startSandbox()
  other = mkdtempSync(join(tmpdir(), 'opsctl-other-'))
  await addSandboxProfile(other)
  await addSandboxProfile(sandbox.configDir)
})

afterAll(async () => {
  await sandbox?.stop()
  rmSync(other, {force: true, recursive: true})
})

describe('a sandbox started from another config folder', () => {
  it('answers as usual, and the terminal shows one line saying whose it is and how to start your own', async () => {
    const r = await runInTerminal(['webhook', 'list'], [], {env: {OPSCTL_CONFIG_DIR: other}})
    expect(r.code, r.stdout).toBe(0)
    expect(r.stdout).toMatch(/^id +name +callbackUrl/m)
    expect(r.stdout.split(NOTE)).toHaveLength(2)
    expect(r.stdout).toContain(`the sandbox at ${sandbox.origin} ${NOTE}`)
    expect(r.stdout).toContain('opsctl sandbox start --port 0')
  })

  it('says nothing to the folder that started it', async () => {
    const r = await runInTerminal(['webhook', 'list'], [], {env: {OPSCTL_CONFIG_DIR: sandbox.configDir}})
    expect(r.code, r.stdout).toBe(0)
    expect(r.stdout).not.toContain(NOTE)
  })

  it('says nothing to a script, nor when its control token was handed over', async () => {
    const piped = await runCli(['webhook', 'list', '--json'], {env: {OPSCTL_CONFIG_DIR: other}})
    expect(piped.code, piped.stderr).toBe(0)
    expect(piped.stderr).toBe('')
    const handed = await runInTerminal(['webhook', 'list'], [], {env: {OPSCTL_CONFIG_DIR: other, OPSCTL_SANDBOX_TOKEN: sandbox.token}})
    expect(handed.stdout).not.toContain(NOTE)
  })
})
