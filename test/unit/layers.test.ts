/**
 * The layer rules of eslint.config.js, on code that breaks them: only src/http speaks HTTP, and
 * src/services and src/sandbox know nothing of the CLI. `npm test` lints the tree with the same rules.
 */
import {ESLint} from 'eslint'
import {resolve} from 'node:path'
import {describe, expect, it} from 'vitest'

const ROOT = resolve(import.meta.dirname, '../..')
const eslint = new ESLint({cwd: ROOT})

async function restricted(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, {filePath: resolve(ROOT, file)})
  return result.messages
    .filter((m) => /^(n\/)?no-restricted-/.test(m.ruleId ?? ''))
    .map((m) => `${m.line}: ${m.message.split('. ')[0]}`)
}

const OUTBOUND = `import {createServer, request} from 'node:http'
import {get} from 'node:https'
import {Agent} from 'undici'

export const all = [Agent, createServer, get, request, await fetch('http://x')]
`

describe('layer rules', () => {
  it('outside src/http, undici, node:http requests and fetch are refused; createServer is allowed', async () => {
    expect(await restricted('src/runtime/example.ts', OUTBOUND)).toEqual([
      `1: 'request' import from 'node:http' is restricted`,
      `2: 'get' import from 'node:https' is restricted`,
      `3: 'undici' import is restricted from being used by a pattern`,
      `5: Unexpected use of 'fetch'`,
    ])
    expect(await restricted('src/http/example.ts', OUTBOUND)).toEqual([])
  })

  it("undici's internals are refused everywhere, src/http, scripts and tests included; its public entry is not", async () => {
    const imported = `import {Agent} from 'undici'
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js'

export const all = [Agent, Dispatcher, await import('undici/lib/core/util.js')]
`
    for (const file of ['src/http/example.ts', 'scripts/example.mjs', 'test/unit/example.test.ts']) {
      expect(await restricted(file, imported), file).toEqual([
        `2: 'undici/lib/dispatcher/dispatcher.js' module is restricted from being used`,
        `4: 'undici/lib/core/util.js' module is restricted from being used`,
      ])
    }
  })

  it('src/services and src/sandbox may not import oclif or the CLI, nor write to process.stdout', async () => {
    const code = `import {Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'

process.stdout.write('x')
export const all = [BaseCommand, Flags]
`
    for (const file of ['src/services/example.ts', 'src/sandbox/example.ts']) {
      expect(await restricted(file, code)).toEqual([
        `1: '@oclif/core' import is restricted from being used by a pattern`,
        `2: '../cli/base-command.js' import is restricted from being used by a pattern`,
        `4: 'process.stdout' is restricted from being used`,
      ])
    }

    expect(await restricted('src/cli/example.ts', code)).toEqual([])
  })
})
