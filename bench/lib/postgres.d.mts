/** Types of postgres.mjs, for the tests that use it (test/helpers/postgres.ts). */
export function postgresBinDir(): string | undefined

export function startPostgres(options?: {password?: string; folderPrefix?: string}): Promise<{
  pid: number
  port: number
  url: string
  urlOf(database: string): string
  stop(): Promise<void>
}>
