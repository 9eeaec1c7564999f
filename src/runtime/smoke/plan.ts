import type {ServiceTarget} from '../../http/services.js'

import {toCurl} from '../../http/curl.js'
import {authCurlArgs} from '../../http/services.js'
import {NO_CONTROL_TOKEN, type SmokeStep} from './runner.js'

/** One step of `smoke --dry-run`: what it exercises, the request it is about, and whether it would run. */
export interface PlannedStep {
  suite: SmokeStep['suite']
  name: string
  operation: string
  /** `run`, or why the step would be skipped on this target */
  runs: string
  /** Absent for a step that sends nothing itself (it waits for a webhook delivery). */
  request?: {method: string; url: string; curl: string}
}

export interface SmokeTargets {
  health: ServiceTarget
  checkout: ServiceTarget
  /** present when the target is a sandbox: the steps that need a buyer or the clock run */
  sandboxOrigin?: string
  /** the sandbox's control token is known: the steps that make a tenant of their own run */
  control?: boolean
}

/**
 * What a smoke run would do, computed from the steps' declarations alone: no step runs, no client
 * is made, nothing is sent. Paths stay templates (`{checkoutId}`): the values come from earlier
 * steps at run time; credentials are `$OPSCTL_*` references.
 */
export function planSmoke(steps: readonly SmokeStep[], targets: SmokeTargets): PlannedStep[] {
  return steps.map((step) => {
    const runs =
      step.sandboxOnly && !targets.sandboxOrigin
        ? 'skipped: needs a buyer or the clock (a sandbox)'
        : step.control && !targets.control
          ? `skipped: ${NO_CONTROL_TOKEN}`
          : 'run'
    const planned: PlannedStep = {name: step.name, operation: step.operation, runs, suite: step.suite}
    if (!step.request) return planned
    const {auth, method, path, service} = step.request
    const target = service === 'health' ? targets.health : targets.checkout
    const url = `${target.baseUrl.replace(/\/+$/, '')}${path}`
    return {...planned, request: {curl: toCurl(method, url, {}, authCurlArgs(target, auth)), method, url}}
  })
}
