/**
 * Headless Chromium for the browser tests, through puppeteer-core.
 *
 * Chromium is the Debian package (.ci/run installs it). Where it cannot be found the tests are
 * reported as skipped, with the reason; OPSCTL_BROWSER_TESTS=required (set by .ci/run) makes a
 * missing browser a failure instead.
 */
import {accessSync, constants, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {type Browser, launch} from 'puppeteer-core'

const CHROMIUM_CANDIDATES = process.env.OPSCTL_CHROMIUM ? [process.env.OPSCTL_CHROMIUM] : ['/usr/bin/chromium', '/usr/bin/chromium-browser']

export const chromium = CHROMIUM_CANDIDATES.find((path) => {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
})
export const browserRequired = process.env.OPSCTL_BROWSER_TESTS === 'required'
export const chromiumMissing = `Chromium not found (looked at ${CHROMIUM_CANDIDATES.join(', ')}): apt-get install chromium, or set OPSCTL_CHROMIUM`

export interface TestBrowser {
  browser: Browser
  /** Closes the browser and removes its profile folder. */
  close(): Promise<void>
}

/**
 * Starts headless Chromium on a profile of its own. Host names resolve to nothing: a page can
 * reach only loopback addresses, so nothing a test loads (an SDK with a production address
 * written in) ever leaves the machine.
 */
export async function startChromium(): Promise<TestBrowser> {
  if (!chromium) throw new Error(chromiumMissing)
  const profileDir = mkdtempSync(join(tmpdir(), 'opsctl-chromium-'))
  try {
    const browser = await launch({
      executablePath: chromium,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
      ],
      userDataDir: profileDir,
    })
    return {
      browser,
      async close() {
        try {
          await browser.close()
        } finally {
          rmSync(profileDir, {force: true, recursive: true})
        }
      },
    }
  } catch (error) {
    rmSync(profileDir, {force: true, recursive: true})
    throw error
  }
}
