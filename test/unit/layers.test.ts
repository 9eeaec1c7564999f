/**
 * The layer rules of eslint.config.js, on code that breaks them: every border of the layer table in
 * docs/architecture.md, only src/http speaks HTTP, src/services and src/sandbox know nothing of the
 * CLI, the sandbox core names no service, and the CLI uses oclif's public API only. `npm test`
 * lints the tree with the same rules.
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

  /** docs/architecture.md, "Layers": each layer (a file in it) and the folders of src it may import. */
  const TABLE: [file: string, may: string[]][] = [
    ['src/commands/x/example.ts', ['audit', 'cli', 'commands', 'http', 'profiles', 'runtime', 'sandbox', 'services']],
    ['src/hooks/example.ts', ['cli', 'hooks']],
    ['src/cli/example.ts', ['audit', 'cli', 'http', 'profiles', 'runtime', 'services']],
    ['src/runtime/example.ts', ['audit', 'http', 'profiles', 'runtime', 'services']],
    ['src/audit/example.ts', ['audit', 'http', 'profiles', 'services']],
    ['src/profiles/example.ts', ['http', 'profiles', 'services']],
    ['src/services/example.ts', ['http', 'services']],
    ['src/http/example.ts', ['http']],
    ['src/sandbox/example.ts', ['http', 'sandbox', 'services']],
    ['src/startup/example.ts', ['startup']],
    ['src/errors.ts', []],
  ]
  const FOLDERS = ['audit', 'cli', 'commands', 'hooks', 'http', 'profiles', 'runtime', 'sandbox', 'services', 'startup']

  for (const [file, may] of TABLE) {
    it(`${file.split('/').slice(0, 2).join('/')} imports only ${may.join(', ') || 'the leaves (errors, control-chars)'}`, async () => {
      const up = '../'.repeat(file.split('/').length - 2)
      const code = FOLDERS.map((folder, i) => `import {x${i}} from '${up}${folder}/example.js'`).join('\n') + `\nexport const all = [${FOLDERS.map((_, i) => `x${i}`).join(', ')}]\n`
      const refused = (await restricted(file, code)).map((line) => FOLDERS[Number(line.split(':')[0]) - 1])
      expect(refused).toEqual(FOLDERS.filter((folder) => !may.includes(folder)))
    })
  }

  it('the sandbox core reaches the service modules only through src/sandbox/modules.ts', async () => {
    const code = `import {a} from '../../services/health/operations.js'
import {b} from '../../services/sandbox-defaults.js'
import {c} from '../checkout/auth.js'
import {d} from '../modules.js'
import {e} from '../types.js'
import {f} from './store.js'
export const all = [a, b, c, d, e, f]
`
    expect(await restricted('src/sandbox/core/example.ts', code)).toEqual([
      `1: '../../services/health/operations.js' import is restricted from being used by a pattern`,
      `3: '../checkout/auth.js' import is restricted from being used by a pattern`,
    ])
    expect(await restricted('src/sandbox/checkout/example.ts', code.replace('../checkout/auth.js', '../health/auth.js'))).toEqual([])
  })

  it("the CLI does not override oclif's internal members (_run): init, run, catch and finally are its API", async () => {
    const code = `import {Command} from '@oclif/core'
export class Base extends Command {
  protected async _run() {}
  async run() {}
}
`
    expect(await restricted('src/cli/example.ts', code)).toEqual([`3: oclif's underscored members are internal: use init, run, catch and finally (or a hook)`])
    expect(await restricted('src/cli/example.ts', code.replace('_run', 'init'))).toEqual([])
  })
})
