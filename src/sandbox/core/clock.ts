import type {Clock} from '../types.js'

import {advanceProblem, clockTimeProblem} from '../../services/clock-bounds.js'

/** A clock move the sandbox refuses (the control route answers it with 400). */
export class ClockMoveError extends RangeError {}

/**
 * The one clock every sandbox rule reads. It runs on from wherever it was set: `set` and
 * `advance` move an offset over real time, so waits and timeouts still behave. It stays within
 * ten years of the real time (src/services/clock-bounds.ts), so every date it gives is a valid one.
 * With `--state` the offset is saved in the database (core/state.ts, SavedClock) by `onMove`, in
 * the transaction of the request that moved it, so a restart finds the clock where it was.
 */
export class SandboxClock implements Clock {
  /** Called with the new offset after every move (set, advance): the sandbox saves it with the request's change. */
  onMove?: (offsetMs: number) => void
  private offsetMs = 0
  private dated: {second: number; text: string} = {second: Number.NaN, text: ''}

  constructor(start?: string) {
    if (start) this.set(start)
  }

  /** The distance to the real time, in ms: what is saved. */
  get offset(): number {
    return this.offsetMs
  }

  /** Puts the clock back where a saved offset says (at start, and when a request's change is rolled back). */
  restore(offsetMs: number): void {
    this.offsetMs = offsetMs
  }

  advance(ms: number): void {
    const problem = advanceProblem(ms)
    if (problem) throw new ClockMoveError(`"advance" ${problem}`)
    const beyond = clockTimeProblem(this.now().getTime() + ms)
    if (beyond) throw new ClockMoveError(`the clock ${beyond}`)
    this.offsetMs += ms
    this.onMove?.(this.offsetMs)
  }

  now(): Date {
    return new Date(Date.now() + this.offsetMs)
  }

  /** The time as an HTTP `date` header says it (whole seconds): formatted once a second, not for every answer. */
  httpDate(): string {
    const second = Math.floor((Date.now() + this.offsetMs) / 1000)
    if (second !== this.dated.second) this.dated = {second, text: new Date(second * 1000).toUTCString()}
    return this.dated.text
  }

  set(iso: string): void {
    const at = Date.parse(iso)
    if (Number.isNaN(at)) throw new ClockMoveError(`not an ISO 8601 time: ${iso}`)
    const problem = clockTimeProblem(at)
    if (problem) throw new ClockMoveError(`the clock ${problem}`)
    this.offsetMs = at - Date.now()
    this.onMove?.(this.offsetMs)
  }
}
