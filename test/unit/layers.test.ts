/**
 * The layer rules of eslint.config.js, on code that breaks them: only src/http speaks HTTP,
 * src/services and src/sandbox know nothing of the CLI, and each layer imports only what the layer
 * table of docs/architecture.md allows. `npm test` lints the tree with the same rules.
 */
import {ESLint} from 'eslint'
import {readFileSync} from 'node:fs'
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

/** docs/architecture.md's layer table: each row's folders or files, and the layers it may import. */
function layerTable(): {may: string[]; name: string; paths: string[]}[] {
  const doc = readFileSync(resolve(ROOT, 'docs/architecture.md'), 'utf8')
  const section = doc.slice(doc.indexOf('## Layers'), doc.indexOf('\n## ', doc.indexOf('## Layers') + 1))
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `src/'))
    .map((line) => {
      const cells = line.split('|').map((c) => c.trim())
      const paths = [...cells[1].matchAll(/`([^`]+)`/g)].map((m) => m[1])
      const name = paths[0].replace(/^src\//, '').replace(/\.ts$/, '')
      return {may: cells[3] === 'nothing' ? [] : cells[3].split(',').map((l) => l.trim()), name, paths}
    })
}

/** How a file at `from` names a module of each layer (the first of its paths). */
function importsOfEveryLayer(from: string, table: ReturnType<typeof layerTable>): string {
  const depth = from.split('/').length - 2
  const up = depth === 0 ? './' : '../'.repeat(depth)
  return (
    table
      .map((row, i) => {
        const target = row.paths[0].replace(/^src\//, '')
        return `import * as layer${i} from '${up}${target.endsWith('.ts') ? target.replace(/\.ts$/, '.js') : `${target}/example.js`}'`
      })
      .join('\n') + `\n\nexport const all = [${table.map((_, i) => `layer${i}`).join(', ')}]\n`
  )
}

describe('every border of the layer table', () => {
  const table = layerTable()

  it('the table names every folder of src', () => {
    expect(table.map((row) => row.name)).toEqual(['commands', 'cli', 'runtime', 'audit', 'profiles', 'services', 'http', 'errors', 'sandbox'])
  })

  // One case per layer: its file imports one module of every layer; the rule refuses exactly the layers its row does not name.
  it.each(table.flatMap((row) => row.paths.map((path) => ({path, row}))))('$path imports only what its row allows', async ({path, row}) => {
    const file = path.endsWith('.ts') ? path : `${path}/example.ts`
    // line i + 1 imports the layer of row i
    const refused = (await restricted(file, importsOfEveryLayer(file, table))).map((m) => table[Number.parseInt(m, 10) - 1].name)
    const expected = table.map((other) => other.name).filter((other) => other !== row.name && !row.may.includes(other))
    expect(refused.sort()).toEqual(expected.sort())
  })
})
