import type {Clock} from '../types.js'

/**
 * The one clock every sandbox rule reads. It runs on from wherever it was set: `set` and
 * `advance` move an offset over real time, so waits and timeouts still behave.
 */
export class SandboxClock implements Clock {
  private offsetMs = 0

  constructor(start?: string) {
    if (start) this.set(start)
  }

  advance(ms: number): void {
    this.offsetMs += ms
  }

  now(): Date {
    return new Date(Date.now() + this.offsetMs)
  }

  set(iso: string): void {
    const at = Date.parse(iso)
    if (Number.isNaN(at)) throw new TypeError(`not an ISO 8601 time: ${iso}`)
    this.offsetMs = at - Date.now()
  }
}
