/**
 * The one loader of the services' schemas (docs/startup.md, "Schemas built on first use"). The
 * tables (src/services/<service>/operations.ts) and the query readers (src/services/query.ts) are
 * plain zod; building all their schemas when a command loads its table costs some 15 ms of CPU,
 * and a command uses one or two of them. So the build wraps each schema of those files in
 * `lazySchema(() => ...)` (src/startup/lazy-schema.ts), which builds it when it is first read:
 * every top-level `const` whose name is PascalCase and whose value is a call (`z.looseObject(...)`,
 * `AmountValue.refine(...)`, `stringOrNumber(...)`). Constants (`EVENTS_PAGE_SIZE`, `MAC_PATTERN`),
 * functions and the table itself (`checkoutService = defineService(...)`) stay as written.
 *
 * The tests run the sources as they are, eager; the process tests run the build, lazy.
 */
import {readFile} from 'node:fs/promises'
import {dirname, join, relative} from 'node:path'
import {fileURLToPath} from 'node:url'
import ts from 'typescript'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
/** The modules whose schemas are built on first use: each service's table, and the query readers. */
export const LAZY_SCHEMA_FILES = /[\\/]src[\\/]services[\\/](?:[^\\/]+[\\/]operations|query)\.ts$/
const LAZY_SCHEMA = join(ROOT, 'src/startup/lazy-schema.ts')
const PASCAL_CASE = /^[A-Z][a-z]/

/** What a chain of calls starts from: `z` in `z.string().trim()`, `AmountValue` in `AmountValue.refine(...)`. */
function rootOf(node) {
  while (ts.isCallExpression(node) || ts.isPropertyAccessExpression(node)) node = node.expression
  return ts.isIdentifier(node) ? node.text : undefined
}

/**
 * The module's source with each schema wrapped. Throws when it has none (the file or the rule
 * moved), or when a PascalCase call starts from anything but zod, another schema of the file or a
 * function of the file: a value that is not a schema would be wrapped in a stand-in for one.
 */
export function wrapSchemas(code, path) {
  const source = ts.createSourceFile(path, code, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS)
  const fromHere = new Set(['z'])
  for (const statement of source.statements) if (ts.isFunctionDeclaration(statement) && statement.name) fromHere.add(statement.name.text)
  const edits = []
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement) || !(statement.declarationList.flags & ts.NodeFlags.Const)) continue
    for (const declaration of statement.declarationList.declarations) {
      const {initializer, name} = declaration
      if (!ts.isIdentifier(name) || !PASCAL_CASE.test(name.text) || !initializer || !ts.isCallExpression(initializer)) continue
      const root = rootOf(initializer)
      if (!fromHere.has(root)) {
        throw new Error(`${relative(ROOT, path)}: ${name.text} is built from ${root ?? 'an expression'}, not zod: name a value that is not a schema in UPPER_CASE or camelCase (scripts/lazy-schemas.mjs)`)
      }

      fromHere.add(name.text)
      edits.push({at: initializer.getStart(source), text: 'lazySchema$(() => ('}, {at: initializer.end, text: '))'})
    }
  }

  if (edits.length === 0) throw new Error(`${relative(ROOT, path)}: no schema to build on first use (scripts/lazy-schemas.mjs)`)
  let wrapped = code
  for (const edit of edits.sort((a, b) => b.at - a.at)) wrapped = wrapped.slice(0, edit.at) + edit.text + wrapped.slice(edit.at)
  // on the first line, before the module's own: its lines keep their numbers
  return `import {lazySchema as lazySchema$} from ${JSON.stringify(LAZY_SCHEMA)}; ${wrapped}`
}

/** The esbuild plugin: the files of LAZY_SCHEMA_FILES, their schemas wrapped. */
export const lazySchemas = {
  name: 'lazy-schemas',
  setup(b) {
    b.onLoad({filter: LAZY_SCHEMA_FILES}, async (args) => ({
      contents: wrapSchemas(await readFile(args.path, 'utf8'), args.path),
      loader: 'ts',
      resolveDir: dirname(args.path),
    }))
  },
}
