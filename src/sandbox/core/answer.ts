import type {Operation} from '../../http/operation.js'

import {type Handler, Reply, type SandboxContext, type SandboxModule, type SandboxReply, type SandboxRequest} from '../types.js'

/** Runs a row's handler and gives its answer the row's success status, unless the handler returned a `Reply` with another. */
export async function answer(op: Operation, handler: Handler, req: SandboxRequest, ctx: SandboxContext): Promise<SandboxReply> {
  const out = await handler(req, ctx)
  if (out instanceof Reply) return {status: out.init.status ?? op.successStatus, body: out.body, headers: out.init.headers}
  return {status: op.successStatus, body: out}
}

/** The handler of every row of a module's table; a module built without the types (plain JS) fails here, at start. */
export function handlersOf(m: SandboxModule): {handler: Handler; op: Operation}[] {
  return m.service.list.map((op) => {
    const handler = (m.handlers as Record<string, Handler | undefined>)[op.id]
    if (!handler) throw new Error(`The ${m.service.name} sandbox module has no handler for ${op.id}`)
    return {handler, op}
  })
}
