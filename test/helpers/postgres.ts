/**
 * A throwaway PostgreSQL cluster for tests: `initdb` in a temporary folder owned by the `postgres`
 * user (initdb and postgres refuse to run as root), `postgres` listening on a free loopback port,
 * stopped (SIGINT: fast shutdown) and removed by `stop()`. The binaries are looked up in
 * OPSCTL_POSTGRES_BIN, /usr/local/bin and Debian's /usr/lib/postgresql/<n>/bin.
 *
 * `postgresSkipReason()` is the reason PostgreSQL tests skip: only when the binaries are absent and
 * CI is not set (in CI they must run: .ci/run installs them).
 */
import {type ChildProcess, execFileSync, spawn} from 'node:child_process'
import {chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

export interface PostgresCluster {
  /** postgres://postgres:<password>@127.0.0.1:<port>/<database> */
  url: string
  port: number
  stop(): Promise<void>
}

const PASSWORD = 'sandbox-test-password'

/** The folder holding initdb and postgres, or undefined. */
export function postgresBinDir(): string | undefined {
  const candidates = [process.env.OPSCTL_POSTGRES_BIN, '/usr/local/bin']
  const debian = '/usr/lib/postgresql'
  if (existsSync(debian)) {
    for (const version of readdirSync(debian).sort((a, b) => Number(b) - Number(a))) candidates.push(join(debian, version, 'bin'))
  }

  return candidates.find((dir) => dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'postgres')))
}

export function postgresSkipReason(): string | undefined {
  if (postgresBinDir()) return undefined
  if (process.env.CI) throw new Error('CI is set but the PostgreSQL binaries (initdb, postgres) were not found: .ci/run installs Debian postgresql')
  return 'PostgreSQL binaries (initdb, postgres) not found: install Debian postgresql or set OPSCTL_POSTGRES_BIN'
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const {port} = server.address() as {port: number}
      server.close(() => resolve(port))
    })
  })

/**
 * The postgres user's ids when this process is root (as CI is; initdb and postgres refuse root),
 * else none (this user). Given to spawn itself rather than through runuser, so that signals reach
 * postgres.
 */
function postgresUser(): {gid: number; uid: number} | undefined {
  if (process.getuid?.() !== 0) return undefined
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], {encoding: 'utf8'}).trim())
  return {gid: id('-g'), uid: id('-u')}
}

export async function startPostgres(): Promise<PostgresCluster> {
  const bin = postgresBinDir()
  if (!bin) throw new Error(postgresSkipReason())
  const root = mkdtempSync(join(tmpdir(), 'opsctl-pg-'))
  chmodSync(root, 0o700)
  const data = join(root, 'data')
  const pwfile = join(root, 'pw')
  writeFileSync(pwfile, PASSWORD, {mode: 0o644})
  const user = postgresUser()
  if (user) chownSync(pwfile, user.uid, user.gid)
  if (user) chownSync(root, user.uid, user.gid)
  execFileSync(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=scram-sha-256', `--pwfile=${pwfile}`, '-E', 'UTF8', '--no-sync'], {
    ...user,
    stdio: 'pipe',
  })
  const port = await freePort()
  const args = [
    '-D',
    data,
    '-p',
    String(port),
    '-h',
    '127.0.0.1',
    '-k',
    root,
    '-c',
    'fsync=off',
    '-c',
    'max_connections=200',
  ]
  const server: ChildProcess = spawn(join(bin, 'postgres'), args, {...user, stdio: ['ignore', 'ignore', 'pipe']})
  let log = ''
  server.stderr!.on('data', (chunk: Buffer) => {
    log += chunk.toString()
    if (log.length > 20_000) log = log.slice(-10_000)
  })
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()))
  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null) {
      server.kill('SIGINT')
      await exited
    }

    rmSync(root, {force: true, recursive: true})
  }

  try {
    await waitUntilReady(port, () => server.exitCode !== null, () => log)
  } catch (error) {
    await stop()
    throw error
  }

  return {port, stop, url: `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`}
}

async function waitUntilReady(port: number, exited: () => boolean, log: () => string): Promise<void> {
  const {default: pg} = await import('pg')
  for (;;) {
    if (exited()) throw new Error(`postgres exited: ${log()}`)
    const client = new pg.Client({connectionString: `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`})
    try {
      await client.connect()
      await client.end()
      return
    } catch {
      // a client that failed to connect is closed already (end() would never settle)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}
