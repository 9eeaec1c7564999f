/**
 * The real sandbox (src/sandbox) inside the test process, on a free loopback port, for command
 * tests that run against it in-process with the one harness (./command.ts): real HTTP through the
 * CLI's transport, real sandbox rules and state, and no child process to start or to wait for.
 * Tests where a process is the point use test/e2e/harness.ts instead.
 */
import {afterAll, beforeAll} from 'vitest'

import {createSandbox, type RunningSandbox, type SandboxOptions} from '../../src/sandbox/core/server.js'
import {SANDBOX_KEYS, sandboxBaseUrls} from '../../src/services/sandbox-defaults.js'
import {isolate} from './command.js'
import {sandboxControlCall} from './control.js'

export interface InProcessSandbox {
  origin: string
  healthUrl: string
  checkoutUrl: string
  publicKey: string
  secretKey: string
  /** the control token (`/__sandbox/...` routes); `user()` hands it to the CLI as OPSCTL_SANDBOX_TOKEN */
  token: string
  running: RunningSandbox
  /**
   * A CLI user of this sandbox: a fresh config folder (`isolate()`) and the OPSCTL_* variables that
   * point at it. `cleanup()` gives back the environment it found (users nest: undo in reverse order).
   */
  user(): {dir: string; cleanup(): void}
  /** Calls a `/__sandbox/...` control endpoint; returns the parsed JSON answer. */
  control(path: string, body?: unknown, method?: string): Promise<any>
  close(): Promise<void>
}

export async function inProcessSandbox(options: Omit<SandboxOptions, 'host' | 'port'> = {}): Promise<InProcessSandbox> {
  const running = await createSandbox({...options, port: 0})
  const urls = sandboxBaseUrls(running.origin)
  return {
    origin: running.origin,
    healthUrl: urls.health,
    checkoutUrl: urls.checkout,
    ...SANDBOX_KEYS,
    token: running.token,
    running,
    user() {
      const env = isolate()
      Object.assign(process.env, {OPSCTL_CHECKOUT_URL: urls.checkout, OPSCTL_HEALTH_URL: urls.health, OPSCTL_SANDBOX_TOKEN: running.token})
      return env
    },
    async control(path, body, method) {
      return sandboxControlCall(running, path, body, method)
    },
    close: () => running.close(),
  }
}

/** For a whole test file: one sandbox and one user of it, from before the first test to after the last. Read them inside the tests. */
export function sandboxPerFile(options: Omit<SandboxOptions, 'host' | 'port'> = {}): {
  readonly sandbox: InProcessSandbox
  readonly user: {dir: string; cleanup(): void}
} {
  let sandbox: InProcessSandbox | undefined
  let user: {dir: string; cleanup(): void} | undefined
  beforeAll(async () => {
    sandbox = await inProcessSandbox(options)
    user = sandbox.user()
  })
  afterAll(async () => {
    user?.cleanup()
    await sandbox?.close()
  })
  return {
    get sandbox() {
      return sandbox as InProcessSandbox
    },
    get user() {
      return user as {dir: string; cleanup(): void}
    },
  }
}
