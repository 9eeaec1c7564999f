/**
 * `--open`: opens an address in the user's browser with `open` and says whether that worked.
 * The opener (xdg-open, open, PowerShell's Start-Process) is waited for, so "opened" means it
 * exited 0, not merely that it was started: xdg-open on a machine without a browser exits 3.
 */
import type {ChildProcess} from 'node:child_process'

import {basename} from 'node:path'

export type OpenOutcome = {opened: false; reason: string} | {opened: true}

/** An opener that has not finished by then is not counted as a success. */
const OPENER_WAIT_MS = 10_000

/** What xdg-open's documented exit codes mean for a buyer's page. */
const XDG_OPEN_CODES: ReadonlyMap<number, string> = new Map([
  [3, 'no browser was found'],
  [4, 'the browser failed to open it'],
])

function exitReason(opener: string, code: null | number, signal: NodeJS.Signals | null): string {
  if (code === null) return `${opener} was stopped by ${signal}`
  const meaning = opener === 'xdg-open' ? XDG_OPEN_CODES.get(code) : undefined
  return `${opener} exited ${code}${meaning ? `: ${meaning}` : ''}`
}

function outcomeOf(child: ChildProcess): Promise<OpenOutcome> {
  const opener = basename(child.spawnfile)
  return new Promise((resolve) => {
    const timer = setTimeout(
      () => resolve({opened: false, reason: `${opener} did not finish within ${OPENER_WAIT_MS / 1000} s`}),
      OPENER_WAIT_MS,
    )
    const settle = (outcome: OpenOutcome) => {
      clearTimeout(timer)
      resolve(outcome)
    }

    child.once('error', (error: NodeJS.ErrnoException) =>
      settle({opened: false, reason: `${opener} could not start (${error.code ?? error.message})`}),
    )
    child.once('exit', (code, signal) => settle(code === 0 ? {opened: true} : {opened: false, reason: exitReason(opener, code, signal)}))
  })
}

export async function openInBrowser(url: string): Promise<OpenOutcome> {
  const {default: open} = await import('open')
  try {
    return await outcomeOf(await open(url))
  } catch (error) {
    return {opened: false, reason: (error as Error).message}
  }
}
