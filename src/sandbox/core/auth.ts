import type {Operation} from '../../http/operation.js'

import {type SandboxContext, SandboxError} from '../types.js'

/**
 * Who may reach another user's data (`userId` in the path): the module's own rule, which throws
 * to refuse. Without one, only the caller's own data.
 */
export type UserAccessRule = (op: Operation, targetId: string, callerId: string, ctx: SandboxContext) => Promise<unknown> | void

/** Replaces `me` in a userId param, then applies the access rule (by default: someone else's data is 403). */
export async function authorizeUserParam(
  params: Record<string, string>,
  userId: string | undefined,
  access?: {ctx: SandboxContext; op: Operation; rule: UserAccessRule},
): Promise<void> {
  if (params.userId === undefined || userId === undefined) return
  if (params.userId === 'me') params.userId = userId
  if (access) {
    await access.rule(access.op, params.userId, userId, access.ctx)

    return
  }

  if (params.userId !== userId) throw new SandboxError(403, 'FORBIDDEN', "You may not access another user's data")
}
