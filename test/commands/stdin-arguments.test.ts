/**
 * oclif gives piped stdin to the first missing argument unless told not to: `echo chk_1 | opsctl
 * checkout void --yes` would have voided chk_1 without a word. Arguments come only from the
 * command line; a missing one is a usage error and nothing is sent.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import CheckoutGet from '../../src/commands/checkout/get.js'
import CheckoutVoid from '../../src/commands/checkout/void.js'
import ProfileShow from '../../src/commands/profile/show.js'
import {type CommandHarness, commandHarness} from '../helpers/command.js'

describe('piped stdin never becomes an argument', () => {
  let h: CommandHarness
  beforeEach(async () => {
    h = await commandHarness()
  })
  afterEach(async () => {
    await h.close()
  })

  it.each([
    ['checkout get', CheckoutGet, ['--dry-run']],
    ['checkout void', CheckoutVoid, ['--reason', 'duplicate order', '--yes']],
  ] as const)('%s with the id on stdin: exit 2, nothing sent', async (_name, Cmd, argv) => {
    const r = await h.run(Cmd, [...argv], {stdin: 'chk_from_stdin\n'})
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^Error: Missing the checkout id: opsctl checkout ?(get|void) CHECKOUTID$/m)
    expect(r.stdout + r.stderr).not.toContain('chk_from_stdin')
    expect(h.calls()).toEqual([])
  })

  it('profile show with a name on stdin shows the profile in use', async () => {
    const r = await h.run(ProfileShow, ['--json'], {stdin: 'not-a-profile\n'})
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout).name).toBe('sandbox')
  })
})
