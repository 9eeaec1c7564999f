/**
 * A throwaway PostgreSQL cluster for tests: the benchmarks' one (bench/lib/postgres.mjs: `initdb`
 * in a temporary folder owned by the `postgres` user, `postgres` on a free loopback port, stopped
 * and removed by `stop()`), with the tests' password.
 *
 * `postgresSkipReason()` is the reason PostgreSQL tests skip: only when the binaries are absent and
 * CI is not set (in CI they must run: .ci/run installs them).
 */
import {postgresBinDir, startPostgres as startCluster} from '../../bench/lib/postgres.mjs'

export {postgresBinDir} from '../../bench/lib/postgres.mjs'

export interface PostgresCluster {
  /** postgres://postgres:<password>@127.0.0.1:<port>/<database> */
  url: string
  port: number
  stop(): Promise<void>
}

export function postgresSkipReason(): string | undefined {
  if (postgresBinDir()) return undefined
  if (process.env.CI) throw new Error('CI is set but the PostgreSQL binaries (initdb, postgres) were not found: .ci/run installs Debian postgresql')
  return 'PostgreSQL binaries (initdb, postgres) not found: install Debian postgresql or set OPSCTL_POSTGRES_BIN'
}

/** Both engines, for `describe.each(bothEngines())`: PostgreSQL with the reason it is skipped, if it is. */
export function bothEngines(): {engine: 'postgres' | 'sqlite'; skip: string | undefined}[] {
  return [
    {engine: 'sqlite', skip: undefined},
    {engine: 'postgres', skip: postgresSkipReason()},
  ]
}

export async function startPostgres(): Promise<PostgresCluster> {
  return startCluster({folderPrefix: 'opsctl-pg-', password: 'sandbox-test-password'})
}
