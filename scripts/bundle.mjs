#!/usr/bin/env node
/**
 * Bundles src/ into dist/ with esbuild (tsc only type-checks). Each command, each hook and the few
 * modules that bin/run.js and the tests load by path is an entry at the path tsc would have given
 * it (dist/commands/webhook/list.js...), so oclif's manifest and pattern strategy work unchanged.
 * What entries share goes into dist/chunks/, split at every dynamic import: a command loads a few
 * files instead of hundreds of modules, and what it imports lazily (undici, the sandbox, prompts)
 * still loads only when used.
 *
 * Packages stay outside the bundle when they cannot move: native code (better-sqlite3; pg-native,
 * which pg loads only when asked for it and opsctl never asks), files
 * found next to their own sources (open's xdg-open), plugins oclif loads by path, and fastify's
 * family, which only the sandbox loads.
 *
 * Then every output file becomes CommonJS (dist/package.json says so): Node's CommonJS loader starts
 * a command about 90 ms of CPU sooner than its ESM loader does for the same files (no async module
 * jobs, no linking, no decoding of each source), and Node caches CommonJS's compiled code (Node 22+
 * natively, Node 20 through src/startup/compile-cache.ts). esbuild splits chunks only for ESM, hence
 * the two passes.
 *
 * The services' schemas are built on first use: scripts/lazy-schemas.mjs wraps them as it loads
 * their files.
 *
 * dist/bundle-inputs.json says which packages each output file holds, for the start-up budget test.
 */
import {build, transform} from 'esbuild'
import {createHash} from 'node:crypto'
import {readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join, relative} from 'node:path'
import {fileURLToPath} from 'node:url'

import {lazySchemas} from './lazy-schemas.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const pjson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))

/**
 * Loaded by path: by oclif (the help class, package.json's oclif.helpClass), by bin/run.js (the compile cache, the secret guard, --no-color, the direct start, the help start, oclif, --version), by the code
 * the CommonJS pass rewrites (import-module) and by test fixtures.
 */
const BY_PATH = ['src/cli/help.ts', 'src/startup/direct-start.ts', 'src/startup/help-start.ts', 'src/oclif.ts', 'src/version.ts', 'src/startup/compile-cache.ts', 'src/startup/import-module.ts', 'src/startup/no-color.ts', 'src/http/secrets/registry.ts', 'src/http/secrets/sources.ts', 'src/http/secrets/streams.ts', 'src/profiles/lock.ts']
// typescript and ts-node: oclif looks for them only in development (NODE_ENV=development).
const EXTERNAL = ['better-sqlite3', 'pg-native', 'open', '@oclif/plugin-*', 'typescript', 'ts-node', 'tsx']

/**
 * A patch of oclif's `file` (under @oclif/core/lib, without `.js`): its `const name = require(module)`
 * loads the module the first time one of its exports is read, instead of when `file` loads.
 */
function onFirstUse(file, name, module) {
  return {
    file: new RegExp(`@oclif[\\\\/]core[\\\\/]lib[\\\\/]${file.replaceAll('/', '[\\\\/]')}\\.js$`),
    from: `const ${name} = require("${module}");`,
    to: `const ${name} = new Proxy({}, { get: (_, key) => require("${module}")[key] });`,
  }
}

/**
 * Lines of oclif (and one of p-retry) that cost every start more than they are worth to opsctl,
 * rewritten as the bundle loads them. The build fails if one of them changes, so an upgrade is checked.
 */
const DEPENDENCY_PATCHES = [
  {
    // localeCompare's first call builds an ICU collator: about 12 ms, a third of `node -e 0`.
    // Command ids are lowercase ASCII words joined by `:` and `-`: the order by code unit is the same.
    file: /@oclif[\\/]core[\\/]lib[\\/]config[\\/]plugin\.js$/,
    from: '.sort((a, b) => a.id.localeCompare(b.id));',
    to: '.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));',
  },
  {
    // Each dependency against each `oclif.plugins` name as a glob: some 40 cold minimatch calls for
    // two plain names. A name without glob characters matches only itself.
    file: /@oclif[\\/]core[\\/]lib[\\/]config[\\/]plugin-loader\.js$/,
    from: 'patterns.some((w) => (0, minimatch_1.minimatch)(p, w))',
    to: 'patterns.some((w) => (/[*?[\\]{}]|[!+@]\\(|^!/.test(w) ? (0, minimatch_1.minimatch)(p, w) : p === w))',
  },
  {
    // Help renders every text it shows (each description, flag, example) as an EJS template: EJS
    // compiles each one into a function (new Function), a third of the CPU of `--help`. A text with
    // neither `<%` nor `%>` has no tag, and EJS renders it as it is: it is shown without the compile.
    file: /@oclif[\\/]core[\\/]lib[\\/]help[\\/]util\.js$/,
    from: 'return ejs_1.default.render(t, context);',
    to: "return t.includes('<%') || t.includes('%>') ? ejs_1.default.render(t, context) : t;",
  },
  // Config's plugins glob their commands' files (tinyglobby, fdir, picomatch) only without a manifest,
  // and opsctl ships one: help, a topic and a typo, which load Config, never glob.
  onFirstUse('config/plugin', 'tinyglobby_1', 'tinyglobby'),
  // Command's module loads Config (the plugin loader, tinyglobby, minimatch) for its static `run`,
  // which a command started directly (src/startup/direct-start.ts) never calls: loaded on first use.
  onFirstUse('command', 'config_1', './config'),
  // ...and help's utilities (ejs) for its deprecation warnings, which no opsctl command has.
  onFirstUse('command', 'util_1', './help/util'),
  // ...and oclif's ux (the spinner and its frames, colorized JSON, the action), which a command uses
  // only to log through oclif, as the parser's flag help does for its usage lines: opsctl's commands
  // print their own output.
  onFirstUse('command', 'ux_1', './ux'),
  onFirstUse('parser/help', 'ux_1', '../ux'),
  // Errors' handler loads all of help (its formatter, the module loader, ts-path, ejs) for an error
  // that asks for help, which opsctl's errors never do; every command loads the handler with the flags.
  onFirstUse('errors/handle', 'index_1', '../help/index'),
  // ...and so do the flags, for the parse of a `--help` flag (opsctl declares none: oclif answers it).
  onFirstUse('flags', 'help_1', './help'),
  // ...and the flags' and the args' file utilities, which load node:fs/promises (and with it
  // readline and the file watchers) at once, for the check of a file or folder value.
  onFirstUse('flags', 'fs_1', './util/fs'),
  onFirstUse('args', 'fs_1', './util/fs'),
  // Help's index loads the module loader and ts-path (node:fs/promises, readline and the file watchers
  // with it) for `loadHelpClass`, which neither the help start (src/startup/help-start.ts) nor the
  // help command calls: they use opsctl's help class, which they import.
  onFirstUse('help/index', 'ts_path_1', '../config/ts-path'),
  onFirstUse('help/index', 'module_loader_1', '../module-loader'),
  // oclif's theme asks supports-color (node:tty, node:os and the environment's colour settings) as
  // its module loads, for the colours of help and errors; opsctl's own output decides its colours
  // itself, so a command that prints neither loads it never.
  onFirstUse('ux/supports-color', 'supports_color_1', 'supports-color'),
  // The parser reads a flag's value from stdin with readline (six of Node's modules) only for a
  // `-` value of a flag that asks for it, which no opsctl flag does.
  onFirstUse('parser/parse', 'node_readline_1', 'node:readline'),
  {
    // The logger loads `debug` (its colour detection, tty, util's inspect) as soon as a command
    // logs its init, to print nothing unless DEBUG is set: debug reads DEBUG once, at load, and
    // opsctl never enables it in code. Without DEBUG, a logger that does nothing.
    file: /@oclif[\\/]core[\\/]lib[\\/]logger\.js$/,
    from: 'const debug_1 = __importDefault(require("debug"));',
    to: 'const debug_1 = { default: (namespace) => (process.env.DEBUG ? require("debug")(namespace) : Object.assign(() => {}, { enabled: false, namespace })) };',
  },
  {
    // p-retry reads the clock at every start for its maxRetryTime, which only the profile lock sets:
    // the global `performance` loads perf_hooks on first use (~0.8 ms of every API command). The
    // start is read only when there is a time limit to measure it against, as it is only used then.
    file: /[\\/]p-retry[\\/]index\.js$/,
    from: 'const startTime = performance.now();',
    to: 'const startTime = Number.isFinite(options.maxRetryTime) ? performance.now() : 0;',
  },
]
const dependencyPatches = {
  name: 'dependency-patches',
  setup(b) {
    // the files some patch names, and no others, are read here (esbuild's filter is checked before any JavaScript runs)
    b.onLoad({filter: new RegExp(DEPENDENCY_PATCHES.map((patch) => patch.file.source).join('|'))}, (args) => {
      const patches = DEPENDENCY_PATCHES.filter((patch) => patch.file.test(args.path))
      if (patches.length === 0) return undefined
      let code = readFileSync(args.path, 'utf8')
      for (const patch of patches) {
        if (!code.includes(patch.from)) throw new Error(`${args.path} no longer has \`${patch.from}\`: see DEPENDENCY_PATCHES in scripts/bundle.mjs`)
        code = code.replace(patch.from, patch.to)
      }

      return {contents: code, loader: 'js'}
    })
  },
}

/** An `import(` that is a call (after `await`, `return`, `=`, `(`, `,`...), not text in a string or a comment. */
const DYNAMIC_IMPORT = /(?<=(?:\bawait|\breturn|=>|[=(,:?!&|])\s*)import\(/g
const IMPORT_MODULE = 'dist/startup/import-module.js'

function sources(dir) {
  return readdirSync(join(ROOT, dir), {recursive: true, withFileTypes: true})
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)))
}

const result = await build({
  absWorkingDir: ROOT,
  entryPoints: [...sources('src/commands'), ...sources('src/hooks'), ...BY_PATH],
  outdir: 'dist',
  outbase: 'src',
  entryNames: '[dir]/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  define: {
    OPSCTL_VERSION: JSON.stringify(pjson.version),
    // oclif checks Node against its own package.json, found from __dirname: bundled, that file is
    // not there, so the check never warns, yet it loads semver first (~5% of --version).
    'process.env.OCLIF_DISABLE_ENGINE_WARNING': '"true"',
  },
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  plugins: [dependencyPatches, lazySchemas],
})

await toCommonJs(result.metafile)
writeBuildId(result.metafile)

const inputs = {}
for (const [file, output] of Object.entries(result.metafile.outputs)) {
  const packages = new Set()
  for (const input of Object.keys(output.inputs)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)
    if (match) packages.add(match[1])
  }

  inputs[relative('dist', file)] = {bytes: output.bytes, packages: [...packages].sort()}
}

writeFileSync(join(ROOT, 'dist', 'bundle-inputs.json'), JSON.stringify(inputs, null, 2) + '\n')

/**
 * Rewrites each ESM output file as CommonJS, in place. Imports between the bundle's own files become
 * require() calls, lazy ones included (`import('./chunk.js')` would go back through the ESM loader).
 * Any other dynamic import (oclif's ESM plugins, `open`, which is ESM only) calls
 * src/startup/import-module.ts, the one file that keeps an `import()`: see why there.
 */
async function toCommonJs(metafile) {
  for (const file of Object.keys(metafile.outputs)) {
    const path = join(ROOT, file)
    const esm = readFileSync(path, 'utf8')
    const {code} = await transform(esm, {
      banner: esm.includes('import.meta.url') ? `const __opsctlImportMetaUrl = require('node:url').pathToFileURL(__filename).href;` : '',
      define: {'import.meta.url': '__opsctlImportMetaUrl'},
      format: 'cjs',
      loader: 'js',
      logLevel: 'warning',
      platform: 'node',
      target: 'node20',
    })
    let cjs = code.replaceAll(/\bimport\(("\.{1,2}\/[^"]+")\)/g, 'Promise.resolve().then(() => require($1))')
    if (file !== IMPORT_MODULE) {
      const fromHere = relative(dirname(file), IMPORT_MODULE)
      const helper = JSON.stringify(fromHere.startsWith('.') ? fromHere : `./${fromHere}`)
      cjs = cjs.replaceAll(DYNAMIC_IMPORT, `require(${helper}).importModule(`)
    }

    if (/\bimport\.meta\b|\bimport\("\./.test(cjs)) throw new Error(`${file}: ESM left after the CommonJS pass`)
    writeFileSync(path, asciiOnly(cjs))
  }

  writeFileSync(join(ROOT, 'dist', 'package.json'), JSON.stringify({type: 'commonjs'}) + '\n')
}

/**
 * esbuild escapes what is not ASCII in strings, not in comments or regular expressions (two
 * characters in the chunks every command loads, a dash in zod's comments and a C1 control in
 * ansis's pattern). One such character makes Node decode the whole file as UTF-8 into a two-byte
 * string, several times slower than ASCII; a command pack (src/startup/command-pack.ts) takes ASCII
 * bytes as they are. `\\uXXXX` means the same character in a string, a pattern and an identifier, and a
 * comment means nothing; a template literal's raw text would change, and none had one when this
 * was written (every other such character was in a comment).
 */
function asciiOnly(code) {
  // without the u flag each match is one UTF-16 unit (a surrogate alone too), whose escape this is
  return code.replaceAll(/[^\u0000-\u007F]/g, (char) => `\\u${char.codePointAt(0).toString(16).padStart(4, '0')}`)
}

/** What src/startup/compile-cache.ts keys its folder by on Node 20: the build, by content. */
function writeBuildId(metafile) {
  const hash = createHash('sha256')
  for (const file of Object.keys(metafile.outputs).sort()) hash.update(file).update(readFileSync(join(ROOT, file)))
  writeFileSync(join(ROOT, 'dist', 'build-id'), hash.digest('hex').slice(0, 16) + '\n')
}
