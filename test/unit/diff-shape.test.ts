/** What `sandbox diff` counts as a difference between two answers (src/runtime/diff/shape.ts): shape, status and enum values, never other values. */
import {describe, expect, it} from 'vitest'

import {compareAnswers} from '../../src/runtime/diff/shape.js'

const ok = (body: unknown) => ({body, status: 200})

describe('compareAnswers', () => {
  it('ignores values (ids, times, URLs) and compares types, null and absence', () => {
    const ours = ok({createdAt: '2026-01-01T00:00:00Z', id: 'chk_1', note: null, redirectUrl: 'http://127.0.0.1/pay/1'})
    expect(compareAnswers('p', ours, ok({createdAt: '2027-05-05T10:00:00Z', id: 'x-99', note: null, redirectUrl: 'https://pay.example/9'}))).toEqual([])
    expect(compareAnswers('p', ours, ok({createdAt: 1, id: 'x', note: 'text'}))).toEqual([
      {ours: 'string', probe: 'p', theirs: 'number', where: 'createdAt'},
      {ours: 'null', probe: 'p', theirs: 'string', where: 'note'},
      {ours: 'string', probe: 'p', theirs: 'absent', where: 'redirectUrl'},
    ])
  })

  it('compares the elements of two lists only when both have some, merged over every element', () => {
    expect(compareAnswers('p', ok([]), ok([{id: 'w', name: 'CHECKOUT_SUCCESS'}]))).toEqual([])
    expect(compareAnswers('p', ok([{a: 1}, {a: 2, b: 'x'}]), ok([{a: 1, b: 'y'}]))).toEqual([])
    expect(compareAnswers('p', ok([{a: 1}]), ok([{a: 'one'}]))).toEqual([{ours: 'number', probe: 'p', theirs: 'string', where: '[].a'}])
  })

  it('a field absent on one side is one row, not one per field under it', () => {
    expect(compareAnswers('p', ok({amount: {currency: 'PHP', value: '1.00'}}), ok({}))).toEqual([{ours: 'object', probe: 'p', theirs: 'absent', where: 'amount'}])
  })

  it('compares the values of enum paths where both sides show them, and only the status when one side succeeds and the other refuses', () => {
    const enums = {enums: ['status', 'code']}
    expect(compareAnswers('p', ok({status: 'CREATED'}), ok({status: 'CREATED'}), enums)).toEqual([])
    expect(compareAnswers('p', ok({status: 'CREATED'}), ok({status: 'PENDING'}), enums)).toEqual([
      {ours: 'CREATED', probe: 'p', theirs: 'PENDING', where: 'values of status'},
    ])
    expect(compareAnswers('p', ok({id: 'w'}), {body: {code: 'X', message: 'no'}, status: 500}, enums)).toEqual([
      {ours: '200', probe: 'p', theirs: '500', where: 'status'},
    ])
    expect(compareAnswers('p', {body: {code: 'PY0009'}, status: 404}, {body: {code: 'NOT_FOUND'}, status: 404}, enums)).toEqual([
      {ours: 'PY0009', probe: 'p', theirs: 'NOT_FOUND', where: 'values of code'},
    ])
  })

  it("a field of the account's own data may be present on one side only; its type still counts", () => {
    const options = {accountFields: ['birthDate']}
    expect(compareAnswers('p', ok({id: 'u'}), ok({birthDate: '1990-01-01', id: 'u'}), options)).toEqual([])
    expect(compareAnswers('p', ok({birthDate: null}), ok({birthDate: '1990-01-01'}), options)).toEqual([{ours: 'null', probe: 'p', theirs: 'string', where: 'birthDate'}])
  })

  it('says what kind of body it is when one is not JSON or empty', () => {
    expect(compareAnswers('p', {body: undefined, status: 204}, {body: 'OK', status: 204})).toEqual([{ours: 'empty', probe: 'p', theirs: 'text', where: '(body)'}])
  })
})
