/**
 * A command's files of dist/ in one script, which ./compile-cache.ts keeps with its other entries.
 * Most of what loading a command costs is paid per file, however small: Node resolves each
 * require (stats, realpaths, the package's type), reads the file, compiles it or deserialises its
 * cached code; about 0.25 ms a file, for the 35-50 files an API command loads. So the first run of
 * a command records which files it loads; later runs read those files, join them into one script,
 * each wrapped as Node wraps a CommonJS module, and compile that once, with the cached code of a
 * cache entry made from exactly that script (so from exactly those files' bytes). A require of a
 * packed file then runs its function from the script: no resolution, no second read, no compile
 * of its own. What the pack does not hold loads as before.
 */
import {readFileSync, statSync} from 'node:fs'
import {Module} from 'node:module'
import {dirname, isAbsolute, join, resolve} from 'node:path'

/** A CommonJS module's body, as Node calls it. */
type ModuleFunction = (moduleExports: unknown, requireFrom: NodeJS.Require, loading: Module, filename: string, folder: string) => void

/** Far more than any command loads (about 50): a bound on what a recorded list can make a start read. */
export const MAX_PACKED_FILES = 400
/** A bound on the list's file. */
export const MAX_PACK_LIST_BYTES = 64 * 1024
/** A path of dist/, relative, as the build writes them: words, dots and dashes, no `..`. */
const PACKABLE = /^(?:[\w~-][\w.~-]*\/)*[\w~-][\w.~-]*\.js$/

/** The list a first run recorded, if it is one: relative paths of dist/, each once. */
export function parsePackList(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined
  let files: unknown
  try {
    files = JSON.parse(text)
  } catch {
    return undefined
  }

  if (!Array.isArray(files) || files.length === 0 || files.length > MAX_PACKED_FILES) return undefined
  if (!files.every((file) => typeof file === 'string' && PACKABLE.test(file) && !file.split('/').includes('..'))) return undefined
  return new Set(files).size === files.length ? (files as string[]) : undefined
}

/**
 * Who the packed files are now, as the first line of their pack (a comment): each one's device,
 * inode, size, and times of last change of its bytes and of its inode. Taken before the files are
 * read for a pack, so the pack's source starts with the stamp of the files it was read from: while
 * the stamp is the same, a start takes the stored pack's source as it is, without reading the
 * files again (some 50 reads and a 1 MB comparison, 3-4 ms). Any write to a file changes its
 * change time (ctime), which nothing but the system clock sets, a file replaced has another inode,
 * and a copy of the build other ones: each reads the files again. Undefined when one cannot be
 * looked at.
 */
export function packStamp(distDir: string, files: readonly string[]): Buffer | undefined {
  const ids: string[] = []
  for (const file of files) {
    const found = statSync(join(distDir, file), {throwIfNoEntry: false})
    if (!found?.isFile()) return undefined
    ids.push(`${found.dev}:${found.ino}:${found.size}:${found.mtimeMs}:${found.ctimeMs}`)
  }

  return Buffer.from(`/* ${ids.join(' ')} */\n`)
}

/**
 * The script of those files as they are now, after their stamp (packStamp), as UTF-8 bytes
 * (compared with a cache entry's without decoding anything): it evaluates to their `[path, module
 * function]` pairs. Undefined when one cannot be read or is not a plain CommonJS file.
 */
export function packScript(distDir: string, files: readonly string[], stamp: Buffer): Buffer | undefined {
  const parts: Buffer[] = [stamp, Buffer.from('[\n')]
  for (const file of files) {
    let source: Buffer
    try {
      source = readFileSync(join(distDir, file))
    } catch {
      return undefined
    }

    // a shebang is valid only at the start of a file: such a file is left to Node
    if (source[0] === 0x23 && source[1] === 0x21) return undefined
    parts.push(Buffer.from(`[${JSON.stringify(file)}, function (exports, require, module, __filename, __dirname) {`), source, Buffer.from('\n}],\n'))
  }

  parts.push(Buffer.from(']'))
  return Buffer.concat(parts)
}

/**
 * Makes Node take the packed files from the script's functions: a relative or absolute require
 * that names one of them resolves to it without a look at the disk, and loading it calls its
 * function. Every other require goes to Node as before.
 */
export function installPack(distDir: string, pairs: readonly [string, ModuleFunction][]): void {
  const packed = new Map(pairs.map(([file, body]) => [join(distDir, file), body]))
  const loader = Module as unknown as {
    _extensions: Record<string, (loading: Module, filename: string) => void>
    _resolveFilename: (request: string, parent: Module | undefined, ...rest: unknown[]) => string
  }
  const resolveFilename = loader._resolveFilename
  loader._resolveFilename = function (request, parent, ...rest) {
    if (typeof request === 'string' && (request.startsWith('.') || isAbsolute(request))) {
      const file = resolve(parent?.filename ? dirname(parent.filename) : process.cwd(), request)
      if (packed.has(file)) return file
    }

    return resolveFilename.call(this, request, parent, ...rest)
  }

  const loadJs = loader._extensions['.js']
  loader._extensions['.js'] = function (loading, filename) {
    const body = packed.get(filename)
    if (!body) return loadJs.call(this, loading, filename)
    body.call(loading.exports, loading.exports, Module.createRequire(filename), loading, filename, dirname(filename))
  }
}
