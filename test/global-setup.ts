import type {TestProject} from 'vitest/node'

/**
 * One compile-cache folder for every CLI process the tests start in a run (src/startup/compile-cache.ts):
 * temporary, not the user's cache, and removed when the run ends. A folder per worker, removed at
 * the worker's exit, was left behind whenever vitest ended a worker without that exit (about 30 a run).
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

declare module 'vitest' {
  export interface ProvidedContext {
    opsctlCacheDir: string
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'opsctl-cache-'))
  project.provide('opsctlCacheDir', dir)
  return () => rmSync(dir, {force: true, recursive: true})
}
