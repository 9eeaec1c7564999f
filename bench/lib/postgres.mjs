/**
 * A throwaway PostgreSQL cluster, for the benchmarks and the tests (test/helpers/postgres.ts; plain
 * JS so that a bench needs no TypeScript loader): `initdb` in a
 * temporary folder owned by the `postgres` user (initdb and postgres refuse to run as root),
 * `postgres` on a free loopback port with password auth, stopped (SIGINT: fast shutdown) and its
 * folder removed by `stop()`. The binaries are looked up in OPSCTL_POSTGRES_BIN, /usr/local/bin and
 * Debian's /usr/lib/postgresql/<n>/bin; `postgresBinDir()` is undefined when they are absent.
 */
import {execFileSync, spawn} from 'node:child_process'
import {chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import pg from 'pg'

export function postgresBinDir() {
  const candidates = [process.env.OPSCTL_POSTGRES_BIN, '/usr/local/bin']
  const debian = '/usr/lib/postgresql'
  if (existsSync(debian)) {
    for (const version of readdirSync(debian).sort((a, b) => Number(b) - Number(a))) candidates.push(join(debian, version, 'bin'))
  }

  return candidates.find((dir) => dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'postgres')))
}

const freePort = () =>
  new Promise((ok, fail) => {
    const server = createServer()
    server.once('error', fail)
    server.listen(0, '127.0.0.1', () => {
      const {port} = server.address()
      server.close(() => ok(port))
    })
  })

/** The postgres user's ids when this process is root, given to spawn itself (not runuser) so that signals reach postgres. */
function postgresUser() {
  if (process.getuid?.() !== 0) return undefined
  const id = (flag) => Number(execFileSync('id', [flag, 'postgres'], {encoding: 'utf8'}).trim())
  return {gid: id('-g'), uid: id('-u')}
}

/**
 * `{url, port, stop}`; the url names the `postgres` database (`urlOf(name)` another one), with the
 * superuser's `password`. The cluster's folder is a temporary one named from `folderPrefix`.
 */
export async function startPostgres({password = 'sandbox-bench-password', folderPrefix = 'opsctl-bench-pg-'} = {}) {
  const bin = postgresBinDir()
  if (!bin) throw new Error('PostgreSQL binaries (initdb, postgres) not found: install Debian postgresql or set OPSCTL_POSTGRES_BIN')
  const root = mkdtempSync(join(tmpdir(), folderPrefix))
  let server
  let exited = Promise.resolve()
  const stop = async () => {
    if (server && server.exitCode === null && server.signalCode === null) {
      server.kill('SIGINT')
      await exited
    }

    rmSync(root, {force: true, recursive: true})
  }

  try {
    chmodSync(root, 0o700)
    const data = join(root, 'data')
    const pwfile = join(root, 'pw')
    writeFileSync(pwfile, password, {mode: 0o644})
    const user = postgresUser()
    if (user) chownSync(pwfile, user.uid, user.gid)
    if (user) chownSync(root, user.uid, user.gid)
    execFileSync(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=scram-sha-256', `--pwfile=${pwfile}`, '-E', 'UTF8', '--no-sync'], {...user, stdio: 'pipe'})
    const port = await freePort()
    const args = ['-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', root, '-c', 'fsync=off', '-c', 'max_connections=200']
    server = spawn(join(bin, 'postgres'), args, {...user, stdio: ['ignore', 'ignore', 'pipe']})
    let log = ''
    server.stderr.on('data', (chunk) => {
      log = (log + chunk).slice(-10_000)
    })
    exited = new Promise((ok) => server.once('exit', ok))
    const urlOf = (database) => `postgres://postgres:${password}@127.0.0.1:${port}/${database}`
    for (;;) {
      if (server.exitCode !== null) throw new Error(`postgres exited: ${log}`)
      const client = new pg.Client({connectionString: urlOf('postgres')})
      try {
        await client.connect()
        await client.end()
        break
      } catch {
        // a client that failed to connect is closed already (end() would never settle)
        await new Promise((ok) => setTimeout(ok, 100))
      }
    }

    return {pid: server.pid, port, stop, url: urlOf('postgres'), urlOf}
  } catch (error) {
    await stop()
    throw error
  }
}
