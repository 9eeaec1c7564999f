import {mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
/**
 * The bundle's compiled code, kept between runs: Node then skips parsing and compiling what a
 * command runs (about a quarter of a real API command's time). Node 22+ does this itself
 * (`module.enableCompileCache`), given the directory. Node 20 has no such API, so there a
 * CommonJS compile hook does what Node 22 does, for the files of dist/ only: it compiles each with
 * V8's cached data when it has some, and at exit stores the code of every file it compiled
 * afresh, the functions the run called included.
 *
 * The cache lives where oclif keeps opsctl's cache (OPSCTL_CACHE_DIR, else the platform's user
 * cache folder), not in a shared temporary folder: cached code is code the process runs. On Node
 * 20 each build has a folder of its own (dist/build-id, written by scripts/bundle.mjs), since V8
 * checks cached data against the source's length only; a new build removes the folders of older
 * ones. A cache that cannot be read or written only costs speed. NODE_DISABLE_COMPILE_CACHE=1
 * turns it off, as it does Node's own.
 */
import {Module} from 'node:module'
import {homedir} from 'node:os'
import {dirname, join, relative, sep} from 'node:path'
import {Script} from 'node:vm'

const BUILD_FOLDER_PREFIX = 'opsctl-'

type CompileHook = (this: Module, content: string, filename: string) => unknown

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
  const root = join(cacheDirectory(), 'compile-cache')
  const native = (Module as {enableCompileCache?: (dir: string) => unknown}).enableCompileCache
  if (native) {
    native(root)
    return
  }

  let buildId: string
  try {
    buildId = readFileSync(join(distDir, 'build-id'), 'utf8').trim()
  } catch {
    return
  }

  const folder = join(root, `${BUILD_FOLDER_PREFIX}${buildId}-node${process.version}-${process.arch}`)
  const compiled: {file: string; script: Script}[] = []
  const prototype = Module.prototype as unknown as {_compile: CompileHook}
  const compile = prototype._compile
  // The one file of dist/ with an import(), which V8's cached code cannot run on Node 20.
  const importModule = join(distDir, 'startup', 'import-module.js')
  prototype._compile = function (content, filename) {
    if (!filename.startsWith(distDir + sep) || filename === importModule) return compile.call(this, content, filename)
    const file = join(folder, relative(distDir, filename).replaceAll(sep, '~') + '.v8')
    const cachedData = readIfPresent(file)
    const script = new Script(Module.wrap(content), {cachedData, filename})
    if (cachedData === undefined || script.cachedDataRejected) compiled.push({file, script})
    const wrapper = script.runInThisContext() as (...args: unknown[]) => unknown
    return wrapper.call(this.exports, this.exports, Module.createRequire(filename), this, filename, dirname(filename))
  }

  process.once('exit', () => store(root, folder, compiled))
}

function readIfPresent(file: string): Buffer | undefined {
  try {
    return readFileSync(file)
  } catch {
    return undefined
  }
}

/** Writes what was compiled afresh; each file whole or not at all (processes may race for it). */
function store(root: string, folder: string, compiled: {file: string; script: Script}[]): void {
  if (compiled.length === 0) return
  try {
    const created = mkdirSync(folder, {mode: 0o700, recursive: true}) !== undefined
    if (created) removeOtherBuilds(root, folder)
    for (const {file, script} of compiled) {
      const partial = `${file}.${process.pid}.tmp`
      writeFileSync(partial, script.createCachedData(), {mode: 0o600})
      renameSync(partial, file)
    }
  } catch {
    // a read-only or full disk: the next run compiles again
  }
}

function removeOtherBuilds(root: string, current: string): void {
  for (const name of readdirSync(root)) {
    const folder = join(root, name)
    if (name.startsWith(BUILD_FOLDER_PREFIX) && folder !== current) rmSync(folder, {force: true, recursive: true})
  }
}
