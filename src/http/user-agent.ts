/**
 * The `user-agent` opsctl sends: `opsctl/<version> node/<version>`, so a service's logs tell
 * which release and which Node made a request. The bundle (scripts/bundle.mjs) writes the version
 * in at build time; run from source, it is read from package.json, two folders up from src/http.
 */
import {readFileSync} from 'node:fs'

declare const OPSCTL_VERSION: string | undefined

const version =
  typeof OPSCTL_VERSION === 'string'
    ? OPSCTL_VERSION
    : (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {version: string}).version

export const USER_AGENT = `opsctl/${version} node/${process.versions.node}`
