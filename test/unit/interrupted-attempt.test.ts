/**
 * Ctrl-C while audited changes wait for their answers: each is audited once, stderr says so once,
 * then the signal is raised again (with the handler gone, it ends the process). The signal is
 * emitted in-process and process.kill is held, so the test's own process stays up.
 */
import {afterEach, describe, expect, it, vi} from 'vitest'

import {answerCtrlCHere, auditIfInterrupted} from '../../src/cli/interrupted-attempt.js'

const signalled = () => process.listenerCount('SIGINT')

describe('auditIfInterrupted', () => {
  afterEach(() => vi.restoreAllMocks())

  it('audits every change under way once, notes it once, then raises SIGINT again with its handler gone', async () => {
    const before = signalled()
    const kill = vi.spyOn(process, 'kill').mockImplementation(() => true)
    const audited: string[] = []
    const notes: string[] = []
    const note = (text: string) => notes.push(text)
    const audit = (id: string) => async () => {
      audited.push(id)
    }

    auditIfInterrupted(audit('refund 1'), note)
    auditIfInterrupted(audit('refund 2'), note)
    const answered = auditIfInterrupted(audit('refund 3'), note)
    answered()
    expect(signalled()).toBe(before + 1)

    process.emit('SIGINT')
    await vi.waitFor(() => expect(kill).toHaveBeenCalledWith(process.pid, 'SIGINT'))
    expect(audited.sort()).toEqual(['refund 1', 'refund 2'])
    expect(notes).toEqual(['Interrupted before the answer came: 2 changes may have been applied. Audited as unknown (opsctl audit list).'])
    expect(signalled()).toBe(before)
    expect(kill).toHaveBeenCalledTimes(1)
  })

  it('leaves no handler once every answer came, and none while a command answers Ctrl-C itself', () => {
    const before = signalled()
    auditIfInterrupted(async () => undefined, () => undefined)()
    expect(signalled()).toBe(before)

    const release = answerCtrlCHere()
    const answered = auditIfInterrupted(async () => undefined, () => undefined)
    expect(signalled()).toBe(before)
    answered()
    release()
    auditIfInterrupted(async () => undefined, () => undefined)()
    expect(signalled()).toBe(before)
  })
})
