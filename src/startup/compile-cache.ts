import {isAscii} from 'node:buffer'
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
 *
 * Once bin/run.js knows the command, `usePack` loads the rest from the command's pack, one script
 * of all its files, kept as an entry like the others (./command-pack.ts), whose source starts with
 * the stamp of the files it was read from: while they are unchanged, the stored source is used as
 * it is, and the files are not read.
 */
import {Module} from 'node:module'
import {homedir} from 'node:os'
import {dirname, join, relative, resolve, sep} from 'node:path'
import {Script} from 'node:vm'

import {entriesSupported, readEntry, readPrivateText, readStoredEntry, writeEntry, writeWhole} from './cache-entry.js'
import {installPack, MAX_PACK_LIST_BYTES, MAX_PACKED_FILES, packScript, packStamp, parsePackList} from './command-pack.js'
import {folderState, isPrivate, makePrivateFolder} from './private-folder.js'

const BUILD_FOLDER_PREFIX = 'opsctl-'

type CompileHook = (this: Module, content: string, filename: string, ...rest: unknown[]) => unknown

/** The cache of this run, once on. */
export interface CompileCache {
  /**
   * Loads the files of dist/ that command `id` loads from its pack (./command-pack.ts), or, when it
   * has none yet, records them for one. Called once the command is known, before its files load.
   */
  usePack(id: string): void
}

/** What is to be stored at exit. */
interface Pending {
  compiled: {file: string; script: Script; source: string}[]
  list?: {file: string; files: string[]}
  pack?: {file: string; script: Script; source: Buffer}
}

/** oclif's cache folder for opsctl: OPSCTL_CACHE_DIR, else the platform's per-user cache folder. */
export function cacheDirectory(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.OPSCTL_CACHE_DIR) return env.OPSCTL_CACHE_DIR
  if (platform === 'win32') return join(env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'opsctl')
  if (platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'opsctl')
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'opsctl')
}

/** Turns the cache on for the files under `distDir` (this process only). */
export function enableCompileCache(distDir: string): CompileCache | undefined {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return undefined
  // resolve() drops a trailing slash, through which lstat would follow a symlink.
  const root = resolve(cacheDirectory())
  const folder = join(root, 'compile-cache')
  if (!entriesSupported) return undefined
  let buildId: string
  try {
    buildId = readFileSync(join(distDir, 'build-id'), 'utf8').trim()
  } catch {
    return undefined
  }

  const buildFolder = join(folder, `${BUILD_FOLDER_PREFIX}${buildId}-node${process.version}-${process.arch}`)
  const states = [root, folder, buildFolder].map((path) => folderState(path))
  if (states.includes('untrusted')) return undefined
  return hookCompile(distDir, root, folder, buildFolder, states.every((state) => state === 'private'))
}

function hookCompile(distDir: string, root: string, folder: string, buildFolder: string, readable: boolean): CompileCache {
  const pending: Pending = {compiled: []}
  let recording: string[] | undefined
  const prototype = Module.prototype as unknown as {_compile: CompileHook}
  const compile = prototype._compile
  // The one file of dist/ with an import(), which V8's cached code cannot run on Node 20.
  const importModule = join(distDir, 'startup', 'import-module.js')
  prototype._compile = function (content, filename, ...rest) {
    if (!filename.startsWith(distDir + sep) || filename === importModule) return compile.call(this, content, filename, ...rest)
    recording?.push(relative(distDir, filename).replaceAll(sep, '/'))
    const file = join(buildFolder, relative(distDir, filename).replaceAll(sep, '~') + '.v8')
    const cachedData = readable ? readEntry(file, content) : undefined
    const script = new Script(Module.wrap(content), {cachedData, filename})
    if (cachedData === undefined || script.cachedDataRejected) pending.compiled.push({file, script, source: content})
    const wrapper = script.runInThisContext() as (...args: unknown[]) => unknown
    return wrapper.call(this.exports, this.exports, Module.createRequire(filename), this, filename, dirname(filename))
  }

  process.once('exit', () => store(root, folder, buildFolder, pending))
  let packChosen = false
  return {
    usePack(id) {
      if (packChosen) return
      packChosen = true
      const name = join(buildFolder, `pack~${id.replaceAll(':', '~')}`)
      const files = readable ? parsePackList(readPrivateText(`${name}.json`, MAX_PACK_LIST_BYTES)) : undefined
      // Taken before the files are read: a file changed after it no longer matches the stamp the pack's source starts with.
      const stamp = files && packStamp(distDir, files)
      const file = `${name}.v8`
      // While the files are those the stored pack was made from, its source is theirs: they are not read again.
      const stored = stamp && readStoredEntry(file)
      const current = stamp && stored && stored.source.subarray(0, stamp.length).equals(stamp) ? stored : undefined
      const source = current?.source ?? (files && stamp && packScript(distDir, files, stamp))
      if (!source) {
        // the files this run compiles from here on (the command's own) are the pack of its next runs
        recording = []
        pending.list = {file: `${name}.json`, files: recording}
        return
      }

      // else the stored pack's code only if it was made from exactly this source (the files read now, under their stamp now)
      const cachedData = current?.data ?? (stored && stored.source.equals(source) ? stored.data : undefined)
      let script: Script
      let pairs: Parameters<typeof installPack>[1]
      try {
        // the build writes ASCII only (scripts/bundle.mjs): read as such, several times faster than as UTF-8
        script = new Script(source.toString(isAscii(source) ? 'latin1' : 'utf8'), {cachedData, filename: `${name}.js`})
        pairs = script.runInThisContext() as typeof pairs
      } catch {
        // a file of dist/ that does not close what it opens (not the build's): each file goes to Node
        return
      }

      if (cachedData === undefined || script.cachedDataRejected) pending.pack = {file, script, source}
      installPack(distDir, pairs)
    },
  }
}

/** Writes what was compiled afresh, and a command's pack, into folders of the current user's alone. */
function store(root: string, folder: string, buildFolder: string, {compiled, list, pack}: Pending): void {
  const recorded = list && list.files.length > 0 && list.files.length <= MAX_PACKED_FILES
  if (compiled.length === 0 && !recorded && !pack) return
  if (!makePrivateFolder(root, true) || !makePrivateFolder(folder)) return
  const build = makePrivateFolder(buildFolder)
  if (!build) return
  if (build.created) removeOtherBuilds(folder, buildFolder)
  for (const {file, script, source} of [...compiled, ...(pack ? [pack] : [])]) {
    try {
      writeEntry(file, source, script.createCachedData())
    } catch {
      // a read-only or full disk, a name taken: the next run compiles this file again
    }
  }

  try {
    if (recorded) writeWhole(list.file, Buffer.from(JSON.stringify([...new Set(list.files)])))
  } catch {
    // the next run records it again
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
