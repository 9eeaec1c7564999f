export interface FieldProblem {
  field: string
  description: string
}

/** A refusal in the service's own error shape (the core renders it per service). */
export class SandboxError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: FieldProblem[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }
}
