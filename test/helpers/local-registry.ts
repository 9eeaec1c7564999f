/**
 * A package registry on loopback that serves what `npm ci` left in this checkout's node_modules:
 * the packages named and everything they depend on, each at the version installed, as a
 * packument (`GET /<name>`) and a tarball (`GET /-/<file>`). An install from it needs no cache and
 * no network beyond the test's own server, so a fresh clone tests the install as a user makes it
 * (npm resolves the ranges, fetches the tarballs and runs the install scripts), where `--offline`
 * needed registry metadata that `npm ci` never puts in npm's cache.
 */
import {execFile} from 'node:child_process'
import {createHash} from 'node:crypto'
import {readFileSync, statSync} from 'node:fs'
import {createServer} from 'node:http'
import {basename, dirname, join} from 'node:path'
import {promisify} from 'node:util'

const run = promisify(execFile)

interface Found {
  dir: string
  manifest: Record<string, any>
}

export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/`, for npm's `--registry` */
  url: string
  /** The packages it serves, `name@version`. */
  packages: string[]
  close(): Promise<void>
}

/** The folder Node would load `name` from, for code in `from` (nested node_modules first), below `root`. */
function resolveFrom(name: string, from: string, root: string): string | undefined {
  for (let dir = from; dir.startsWith(root); dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name)
    if (statSync(join(candidate, 'package.json'), {throwIfNoEntry: false})) return candidate
    if (dir === root) break
  }

  return undefined
}

/** The packages named and their dependencies (optional ones where installed), as installed below `root`. */
function closure(root: string, names: readonly string[]): Found[] {
  const seen = new Map<string, Found>()
  const visit = (name: string, from: string, optional: boolean) => {
    const dir = resolveFrom(name, from, root)
    if (!dir) {
      if (optional) return
      throw new Error(`${name} is not installed below ${root}: run npm ci`)
    }

    if (seen.has(dir)) return
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    seen.set(dir, {dir, manifest})
    for (const dep of Object.keys(manifest.dependencies ?? {})) visit(dep, dir, false)
    for (const dep of Object.keys(manifest.optionalDependencies ?? {})) visit(dep, dir, true)
  }

  for (const name of names) visit(name, root, false)
  return [...seen.values()]
}

/** Packs an installed package as the registry would hand it out: its files under `package/`, without what an install made (node_modules, build). */
async function tarball(found: Found, into: string): Promise<{file: string; integrity: string}> {
  const {name, version} = found.manifest
  const file = join(into, `${name.replace('/', '-')}-${version}.tgz`)
  const base = basename(found.dir)
  await run('tar', ['-czf', file, '-C', dirname(found.dir), `--exclude=${base}/node_modules`, `--exclude=${base}/build`, `--transform=s,^${base},package,`, base])
  return {file, integrity: `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`}
}

/** Serves the packages named (and their dependencies) from `root`'s node_modules, their tarballs made in `work`. */
export async function localRegistry(root: string, names: readonly string[], work: string): Promise<LocalRegistry> {
  const found = closure(root, names)
  const packed = await Promise.all(found.map(async (f) => ({...f, ...(await tarball(f, work))})))
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as {port: number}
  const url = `http://127.0.0.1:${port}/`

  const packuments = new Map<string, {'dist-tags': {latest: string}; name: string; versions: Record<string, unknown>}>()
  const files = new Map<string, string>()
  for (const p of packed) {
    const {name, version} = p.manifest
    const fileName = basename(p.file)
    files.set(fileName, p.file)
    const doc = packuments.get(name) ?? {'dist-tags': {latest: version}, name, versions: {} as Record<string, unknown>}
    doc.versions[version] = {...p.manifest, _id: `${name}@${version}`, dist: {integrity: p.integrity, tarball: `${url}-/${fileName}`}}
    packuments.set(name, doc)
  }

  server.on('request', (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', url).pathname.slice(1))
    const file = path.startsWith('-/') ? files.get(path.slice(2)) : undefined
    if (file) {
      res.writeHead(200, {'content-type': 'application/octet-stream'}).end(readFileSync(file))
      return
    }

    const doc = packuments.get(path)
    if (doc) {
      res.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify(doc))
      return
    }

    res.writeHead(404, {'content-type': 'application/json'}).end(JSON.stringify({error: 'not found'}))
  })

  return {
    url,
    packages: packed.map((p) => `${p.manifest.name}@${p.manifest.version}`),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
