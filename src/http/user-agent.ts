/**
 * The `user-agent` opsctl sends: `opsctl/<version> node/<version>`, so a service's logs tell
 * which release and which Node made a request. The version is read from the package's own
 * package.json, two folders up from both src/http and dist/http.
 */
import {readFileSync} from 'node:fs'

const {version} = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {version: string}

export const USER_AGENT = `opsctl/${version} node/${process.versions.node}`
