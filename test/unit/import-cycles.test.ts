/**
 * No import cycle in src, type-only imports included (as madge counts them): a cycle makes the
 * order modules load in matter, and says two modules are one. Read from the sources with the
 * TypeScript parser; the strongly connected groups of the graph are the cycles.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'
import ts from 'typescript'
import {describe, expect, it} from 'vitest'

import {ROOT} from '../helpers/command.js'

const SRC = join(ROOT, 'src')

/** Each source file and the files of src it imports or re-exports from. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const name of readdirSync(SRC, {recursive: true}) as string[]) {
    if (!name.endsWith('.ts')) continue
    const file = join(SRC, name)
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest)
    const deps: string[] = []
    for (const statement of source.statements) {
      if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) || !statement.moduleSpecifier) continue
      const specifier = (statement.moduleSpecifier as ts.StringLiteral).text
      if (specifier.startsWith('.')) deps.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')))
    }

    graph.set(file, deps)
  }

  return graph
}

/** The groups of files that import each other, directly or around a loop (Tarjan's strongly connected components). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (file: string): void => {
    index.set(file, next)
    low.set(file, next++)
    stack.push(file)
    onStack.add(file)
    for (const dep of graph.get(file) ?? []) {
      if (!graph.has(dep)) continue
      if (!index.has(dep)) {
        visit(dep)
        low.set(file, Math.min(low.get(file)!, low.get(dep)!))
      } else if (onStack.has(dep)) {
        low.set(file, Math.min(low.get(file)!, index.get(dep)!))
      }
    }

    if (low.get(file) !== index.get(file)) return
    const group: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      group.push(relative(SRC, member))
    } while (member !== file)

    if (group.length > 1) found.push(group.sort())
  }

  for (const file of graph.keys()) if (!index.has(file)) visit(file)
  return found
}

describe('the import graph of src', () => {
  it('has no cycle, type imports included', () => {
    const graph = importGraph()
    expect(graph.size).toBeGreaterThan(150)
    expect(cycles(graph)).toEqual([])
  })

  it('finds a cycle when there is one (the check itself)', () => {
    const a = join(SRC, 'a.ts')
    const b = join(SRC, 'b.ts')
    expect(cycles(new Map([[a, [b]], [b, [a]]]))).toEqual([['a.ts', 'b.ts']])
  })
})
