/**
 * One attempt of a request, as a carrier sends it: the bytes to send and the whole answer read.
 * The rules around it (headers, credentials, timeouts, retries, trace, exit 7) are the
 * transport's (./http-transport.ts); a carrier only moves bytes: ./node-http-carrier.ts for
 * plain http, ./undici-carrier.ts for https and proxies.
 */
export interface Exchange {
  method: string
  url: URL
  /** Every header, credentials included, names in lower case. */
  headers: Record<string, string>
  payload?: Buffer | string
  /** Aborts the attempt; a carrier fails with the signal's reason (a TimeoutError for a timeout). */
  signal: AbortSignal
  /**
   * The most bytes of body to read: past it (or at a content-length over it) the carrier stops,
   * drops the connection and fails with code `ERR_ANSWER_TOO_LARGE` (./answer-limit.ts).
   */
  maxBodyBytes: number
}

export interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
}

export interface Carrier {
  send(exchange: Exchange): Promise<Answer>
  /** Ends idle keep-alive connections, so that a finished command exits at once. */
  close(): Promise<void>
}
