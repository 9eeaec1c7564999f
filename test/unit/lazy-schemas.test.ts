/**
 * The services' schemas are plain zod in the sources and built on first use in the build
 * (scripts/lazy-schemas.mjs wraps them in src/startup/lazy-schema.ts's `lazySchema`). The tables
 * are bundled here as the build bundles them, with zod's builders counted: loading a table builds
 * none of its named schemas, reading a row's builds that one, and a wrapped schema parses as zod.
 */
import type {Plugin} from 'esbuild'

import {build} from 'esbuild'
import {mkdtempSync, rmSync} from 'node:fs'
import {createRequire} from 'node:module'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {afterAll, describe, expect, it, vi} from 'vitest'
import * as z from 'zod'

import {lazySchema} from '../../src/startup/lazy-schema.js'

const ROOT = join(import.meta.dirname, '../..')
const dir = mkdtempSync(join(tmpdir(), 'opsctl-lazy-schemas-'))
afterAll(() => rmSync(dir, {force: true, recursive: true}))

interface Bundled {
  checkoutService: typeof import('../../src/services/checkout/operations.js').checkoutService
  healthService: typeof import('../../src/services/health/operations.js').healthService
  built(): number
}

/** zod with every builder the tables call (`z.looseObject`, `z.string`...) counted. */
const countedZod: Plugin = {
  name: 'counted-zod',
  setup(b) {
    b.onResolve({filter: /^zod$/}, (args) =>
      args.importer.endsWith('counted-zod.js') ? undefined : {namespace: 'counted', path: 'counted-zod.js'},
    )
    b.onLoad({filter: /.*/, namespace: 'counted'}, () => {
      const names = Object.keys(z).filter((name) => /^[a-z]/.test(name) && typeof (z as Record<string, unknown>)[name] === 'function')
      // exported under their own names, some of which are keywords (`catch`, `enum`)
      const counted = names.map(
        (name) => `const counted_${name} = (...args) => (count++, real.${name}(...args)); export {counted_${name} as ${name}}`,
      )
      const rest = Object.keys(z).filter((name) => !names.includes(name) && name !== 'default')
      return {
        contents: [
          `import * as real from 'zod'`,
          'let count = 0',
          'export const built = () => count',
          ...counted,
          `export const {${rest.join(', ')}} = real`,
        ].join('\n'),
        loader: 'js',
        resolveDir: ROOT,
      }
    })
  },
}

async function bundled(name: string, lazy: boolean): Promise<Bundled> {
  const {lazySchemas} = (await import(pathToFileURL(join(ROOT, 'scripts/lazy-schemas.mjs')).href)) as {lazySchemas: Plugin}
  const outfile = join(dir, `${name}.cjs`)
  await build({
    bundle: true,
    format: 'cjs',
    logLevel: 'error',
    outfile,
    platform: 'node',
    plugins: lazy ? [countedZod, lazySchemas] : [countedZod],
    stdin: {
      contents: [
        `export {checkoutService} from './src/services/checkout/operations.ts'`,
        `export {healthService} from './src/services/health/operations.ts'`,
        `export {built} from 'zod'`,
      ].join('\n'),
      loader: 'ts',
      resolveDir: ROOT,
    },
  })
  return createRequire(import.meta.url)(outfile) as Bundled
}

describe("the services' schemas, as the build loads them", () => {
  it('loading both tables builds none of their named schemas; a row builds what it reads, and parses as zod', async () => {
    const eager = await bundled('eager', false)
    const lazy = await bundled('lazy', true)
    // the sources as written build every schema (hundreds of zod calls) when the table loads
    expect(eager.built()).toBeGreaterThan(100)
    // the build's: only what a table's row writes inline (`response: z.array(RefundRecord)`)
    expect(lazy.built()).toBeLessThan(eager.built() / 20)

    const atLoad = lazy.built()
    const {getCheckout} = lazy.checkoutService.operations
    expect(getCheckout.response.parse({id: 'chk_1', status: 'COMPLETED', extra: 1})).toEqual({id: 'chk_1', status: 'COMPLETED', extra: 1})
    expect(getCheckout.response.safeParse({status: 'COMPLETED'}).success).toBe(false)
    const afterOne = lazy.built()
    expect(afterOne).toBeGreaterThan(atLoad)
    expect(afterOne - atLoad).toBeLessThan(eager.built() / 4)

    const {updateEvent} = lazy.healthService.operations
    expect(updateEvent.body.safeParse({}).error?.issues[0]?.message).toMatch(/^nothing to change: give at least one of date, medicationId/)
    expect(updateEvent.body.parse({doses: 2})).toEqual({doses: 2})
  })

  it('refuses to wrap a PascalCase value that is not built from zod, or a file with no schema left', async () => {
    const {wrapSchemas} = (await import(pathToFileURL(join(ROOT, 'scripts/lazy-schemas.mjs')).href)) as {
      wrapSchemas: (code: string, path: string) => string
    }
    const path = join(ROOT, 'src/services/parcels/operations.ts')
    const schemas = `import * as z from 'zod'\nexport const Weight = z.number()\nexport const Heavy = Weight.min(30)\nexport const UNITS = Object.freeze(['kg'])`
    expect(wrapSchemas(schemas, path)).toContain('export const Heavy = lazySchema$(() => (Weight.min(30)))')
    expect(wrapSchemas(schemas, path)).toContain("export const UNITS = Object.freeze(['kg'])")
    expect(() => wrapSchemas(`${schemas}\nexport const Units = Object.freeze(['kg'])`, path)).toThrow(
      'src/services/parcels/operations.ts: Units is built from Object, not zod',
    )
    expect(() => wrapSchemas(`export const UNITS = ['kg']`, path)).toThrow('no schema to build on first use')
  })
})

describe('lazySchema', () => {
  it('builds the schema on first use only, once', () => {
    const make = vi.fn(() => z.looseObject({id: z.string()}))
    const schema = lazySchema(make)
    expect(make).not.toHaveBeenCalled()
    expect(schema.parse({id: 'a', extra: 1})).toEqual({id: 'a', extra: 1})
    expect(schema.safeParse({id: 1}).success).toBe(false)
    expect(make).toHaveBeenCalledTimes(1)
  })

  it("stands in for the schema inside other schemas, in zod's own checks and methods", () => {
    const Inner = lazySchema(() => z.string().regex(/^\d+$/))
    const Outer = z.looseObject({n: Inner.optional(), list: z.array(Inner)})
    expect(Inner instanceof z.ZodType).toBe(true)
    expect(Outer.parse({list: ['1', '22']})).toEqual({list: ['1', '22']})
    expect(Outer.safeParse({n: 'x', list: []}).error?.issues[0]?.path).toEqual(['n'])
  })
})
