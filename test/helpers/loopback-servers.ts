/**
 * Loopback servers that tests start and stop: `listen` keeps each one so `closeAll` can close
 * them after the test, and `recordingProxy` is a proxy that forwards nothing, noting every
 * request and CONNECT it receives (a refusal must come before any).
 */
import {once} from 'node:events'
import {createServer, type Server} from 'node:http'
import {type AddressInfo} from 'node:net'

/** One server on a free loopback port: its origin, and a close that ends open connections too (a browser keeps some alive). */
export async function listenOnLoopback(server: Server): Promise<{origin: string; close(): Promise<void>}> {
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}

export class LoopbackServers {
  private servers: Server[] = []

  async closeAll(): Promise<void> {
    await Promise.all(this.servers.map((s) => new Promise((r) => s.close(r))))
    this.servers = []
  }

  async listen(server: Server, host = '127.0.0.1'): Promise<string> {
    this.servers.push(server)
    await new Promise<void>((r) => server.listen(0, host, r))
    return `http://${host}:${(server.address() as AddressInfo).port}`
  }

  /** Answers 502 to whatever reaches it, after noting it. */
  async recordingProxy(): Promise<{url: string; seen: string[]}> {
    const seen: string[] = []
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`)
      res.writeHead(502).end()
    })
    server.on('connect', (req, socket) => {
      seen.push(`CONNECT ${req.url}`)
      socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n')
    })
    return {seen, url: await this.listen(server)}
  }
}

/** What an endless answer did: the bytes it wrote before the client went away, and whether it did. */
export interface EndlessAnswer {
  written: number
  /** Resolves when the client closed the connection (it stopped reading). */
  closed: Promise<void>
}

/**
 * A handler that answers 200 with a body that does not end: 64 KiB chunks of `fill`, written as
 * fast as the client reads (waiting for 'drain'), until the client drops the connection or `stopAt`
 * bytes were written (then it ends, so that a client without a limit finishes with a huge body
 * instead of running forever). Every answer it gives is in `answers`.
 */
export function endlessAnswers(stopAt: number, fill = ' '): {answers: EndlessAnswer[]; handler: (req: unknown, res: import('node:http').ServerResponse) => void} {
  const answers: EndlessAnswer[] = []
  const chunk = Buffer.alloc(64 * 1024, fill)
  const handler = (_req: unknown, res: import('node:http').ServerResponse) => {
    const answer: EndlessAnswer = {closed: once(res, 'close').then(() => {}), written: 0}
    const client = {gone: false}
    res.once('close', () => (client.gone = true))
    answers.push(answer)
    res.writeHead(200, {'content-type': 'application/json'})
    const pump = () => {
      while (!client.gone && answer.written < stopAt) {
        answer.written += chunk.length
        if (!res.write(chunk)) {
          res.once('drain', pump)
          return
        }
      }

      if (!client.gone) res.end()
    }

    pump()
  }

  return {answers, handler}
}
