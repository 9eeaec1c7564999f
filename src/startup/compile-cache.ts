import {lstatSync, readdirSync, readFileSync, rmSync} from 'node:fs'
/**
 * The bundle's compiled code, kept between runs: Node then skips parsing and compiling what a
 * command runs (about a quarter of a real API command's time). A CommonJS compile hook does it for
 * the files of dist/ only: it compiles each with V8's cached data when it has some made from
 * exactly the same source, and at exit stores the code of every file it compiled afresh, the
 * functions the run called included. The same hook runs on every Node: Node 22+'s own
 * `module.enableCompileCache` stores each file's code as it is compiled, before any of its
 * functions has run, so its entries hold little more than the top level (38 KB for oclif's chunk
 * against 990 KB here) and a cached `webhook list` was about 25 ms slower with it than with this.
 *
 * The cache lives where oclif keeps opsctl's cache (OPSCTL_CACHE_DIR, else the platform's user
 * cache folder), not in a shared temporary folder: cached code is code the process runs. So it is
 * used only when that folder and its compile-cache folder are the current user's alone (see
 * private-folder.ts); otherwise there is no cache at all. Each build and Node has a folder of its
 * own (dist/build-id, written by scripts/bundle.mjs), so that a new build can remove the entries of
 * older ones, and each entry holds the exact source it was made from (cache-entry.ts), since V8
 * checks cached data against the source's length only. A cache that cannot be read, written or trusted
 * only costs speed. NODE_DISABLE_COMPILE_CACHE=1 turns it off, as it does Node's own.
 */
import {Module} from 'node:module'
import {homedir} from 'node:os'
import {dirname, join, relative, resolve, sep} from 'node:path'
import {Script} from 'node:vm'

import {entriesSupported, readEntry, writeEntry} from './cache-entry.js'
import {folderState, isPrivate, makePrivateFolder} from './private-folder.js'

const BUILD_FOLDER_PREFIX = 'opsctl-'

type CompileHook = (this: Module, content: string, filename: string, ...rest: unknown[]) => unknown

/** oclif's cache folder for opsctl: OPSCTL_CACHE_DIR, else the platform's per-user cache folder. */
export function cacheDirectory(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.OPSCTL_CACHE_DIR) return env.OPSCTL_CACHE_DIR
  if (platform === 'win32') return join(env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'opsctl')
  if (platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'opsctl')
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'opsctl')
}

/** Turns the cache on for the files under `distDir` (this process only). */
export function enableCompileCache(distDir: string): void {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return
  // resolve() drops a trailing slash, through which lstat would follow a symlink.
  const root = resolve(cacheDirectory())
  const folder = join(root, 'compile-cache')
  if (!entriesSupported) return
  let buildId: string
  try {
    buildId = readFileSync(join(distDir, 'build-id'), 'utf8').trim()
  } catch {
    return
  }

  const buildFolder = join(folder, `${BUILD_FOLDER_PREFIX}${buildId}-node${process.version}-${process.arch}`)
  const states = [root, folder, buildFolder].map((path) => folderState(path))
  if (states.includes('untrusted')) return
  hookCompile(distDir, root, folder, buildFolder, states.every((state) => state === 'private'))
}

function hookCompile(distDir: string, root: string, folder: string, buildFolder: string, readable: boolean): void {
  const compiled: {file: string; script: Script; source: string}[] = []
  const prototype = Module.prototype as unknown as {_compile: CompileHook}
  const compile = prototype._compile
  // The one file of dist/ with an import(), which V8's cached code cannot run on Node 20.
  const importModule = join(distDir, 'startup', 'import-module.js')
  prototype._compile = function (content, filename, ...rest) {
    if (!filename.startsWith(distDir + sep) || filename === importModule) return compile.call(this, content, filename, ...rest)
    const file = join(buildFolder, relative(distDir, filename).replaceAll(sep, '~') + '.v8')
    const cachedData = readable ? readEntry(file, content) : undefined
    const script = new Script(Module.wrap(content), {cachedData, filename})
    if (cachedData === undefined || script.cachedDataRejected) compiled.push({file, script, source: content})
    const wrapper = script.runInThisContext() as (...args: unknown[]) => unknown
    return wrapper.call(this.exports, this.exports, Module.createRequire(filename), this, filename, dirname(filename))
  }

  process.once('exit', () => store(root, folder, buildFolder, compiled))
}

/** Writes what was compiled afresh, into folders of the current user's alone. */
function store(root: string, folder: string, buildFolder: string, compiled: {file: string; script: Script; source: string}[]): void {
  if (compiled.length === 0) return
  if (!makePrivateFolder(root, true) || !makePrivateFolder(folder)) return
  const build = makePrivateFolder(buildFolder)
  if (!build) return
  if (build.created) removeOtherBuilds(folder, buildFolder)
  for (const {file, script, source} of compiled) {
    try {
      writeEntry(file, source, script.createCachedData())
    } catch {
      // a read-only or full disk, a name taken: the next run compiles this file again
    }
  }
}

/** Removes the folders of older builds: only real folders of the current user, never through a symlink. */
function removeOtherBuilds(folder: string, current: string): void {
  try {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name)
      if (!name.startsWith(BUILD_FOLDER_PREFIX) || path === current) continue
      const stats = lstatSync(path)
      if (stats.isDirectory() && isPrivate(stats)) rmSync(path, {force: true, recursive: true})
    }
  } catch {
    // what is left is removed by a later build
  }
}
