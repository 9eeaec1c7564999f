/**
 * The built CLI (`bin/run.js` over dist/, with its manifest) as real processes: what only a real
 * process shows — help and topics from the manifest, the version, the not-found hook, exit codes,
 * stdout/stderr separation, file modes. Needs `npm run build` first (npm test does it).
 */
import {execFileSync, spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import {type AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {baseEnv, ROOT, runCli} from '../e2e/harness.js'

let configDir: string
const run = (argv: string[], env: Record<string, string> = {}, input?: string) =>
  runCli(argv, {env: {OPSCTL_CONFIG_DIR: configDir, ...env}, input})

beforeEach(() => {
  configDir = mkdtempSync(join(tmpdir(), 'opsctl-proc-'))
})

afterEach(() => {
  rmSync(configDir, {force: true, recursive: true})
})

async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const {port} = server.address() as AddressInfo
  await new Promise((r) => server.close(r))
  return port
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return (server.address() as AddressInfo).port
}

describe('help, version, unknown commands', () => {
  it('--help lists the topics and commands', async () => {
    const r = await run(['--help'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/TOPICS[\s\S]*profile\s+Named profiles: base URLs and credentials/)
    expect(r.stdout).toMatch(/COMMANDS[\s\S]*api\s+Send a raw request/)
  })

  it('help of a topic and of a command shows the global flags and examples', async () => {
    const topic = await run(['profile', '--help'])
    expect(topic.code).toBe(0)
    for (const c of ['add', 'list', 'remove', 'show', 'use']) expect(topic.stdout).toContain(`profile ${c}`)
    const cmd = await run(['api', '--help'])
    expect(cmd.stdout).toMatch(/GLOBAL FLAGS[\s\S]*--dry-run/)
    expect(cmd.stdout).toContain('EXAMPLES')
  })

  it('help offers --yes and --dry-run only where they apply', async () => {
    const get = await run(['checkout', 'get', '--help'])
    expect(get.stdout).toMatch(/GLOBAL FLAGS[\s\S]*--dry-run/)
    expect(get.stdout).not.toMatch(/--yes|-y,/)
    const voids = await run(['checkout', 'void', '--help'])
    expect(voids.stdout).toMatch(/-y, --yes\s+skip confirmation of destructive changes/)
    const start = await run(['sandbox', 'start', '--help'])
    for (const flag of ['--dry-run', '--yes', '--columns', '--output', '--verbose']) expect(start.stdout, flag).not.toContain(flag)
  })

  it('help says how an empty --profile and an empty OPSCTL_PROFILE are read', async () => {
    const help = await run(['webhook', 'delete', '--help'])
    expect(help.stdout.replaceAll(/\s+/g, ' ')).toMatch(
      /-p, --profile=<value>.*an empty OPSCTL_PROFILE counts as unset, an empty --profile is an error/,
    )
  })

  it('--version prints name/version', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    const r = await run(['--version'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(new RegExp(`^opsctl/${pkg.version.replaceAll('.', String.raw`\.`)} `))
  })

  it('--version and -v (answered without oclif) print exactly the line oclif prints', async () => {
    const script = `const {execute} = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'oclif.js')).href)})
await execute({args: ['--version'], dir: ${JSON.stringify(ROOT)}})`
    const oclif = spawnSync(process.execPath, ['--input-type=module', '-e', script], {cwd: ROOT, encoding: 'utf8', env: baseEnv()})
    expect(oclif.status, oclif.stderr).toBe(0)
    expect(oclif.stdout).toMatch(/^opsctl\/\S+ \S+-\S+ node-v\S+\n$/)
    const [short, long] = await Promise.all([run(['-v']), run(['--version'])])
    expect(long).toEqual({code: 0, stderr: '', stdout: oclif.stdout})
    expect(short).toEqual(long)
  })

  it('a typo suggests the nearest command and exits 2', async () => {
    const r = await run(['profil', 'list'])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain('`profil list` is not a command. Did you mean `profile list`?')
  })

  it('help with a typo suggests the nearest command or help topic and exits 2, printing no help', async () => {
    const [command, topic, nested] = await Promise.all([run(['help', 'evnts']), run(['help', 'envirnment']), run(['help', 'checkout', 'lst'])])
    expect(command).toEqual({code: 2, stderr: 'Error: `evnts` is not a command or help topic. Did you mean `events`?\n  Try this: Read the help: opsctl help events\n', stdout: ''})
    expect(topic.code).toBe(2)
    expect(topic.stderr).toContain('Did you mean `environment`?')
    expect(nested.code).toBe(2)
    expect(nested.stderr).toContain('`checkout lst` is not a command or help topic. Did you mean `checkout list`?')
    // the words after a command are its arguments, as before
    const args = await run(['help', 'events', 'list', 'me'])
    expect(args.code, args.stderr).toBe(0)
    expect(args.stdout).toContain('USAGE')
  })

  it('help and autocomplete refuse what they do not take as every command does: one short line, exit 2, no help, no stack trace', async () => {
    const [typo, topic, flag, shell] = await Promise.all([
      run(['help', 'evnts', '--json']),
      run(['help', 'events', '--json']),
      run(['autocomplete', '--bogus']),
      run(['autocomplete', 'tcsh']),
    ])
    for (const r of [typo, topic]) {
      expect(r).toEqual({code: 2, stderr: 'Error: Unknown flag --json.\n  Try this: Read the help: opsctl help --help\n', stdout: ''})
    }

    expect(flag).toEqual({code: 2, stderr: 'Error: Unknown flag --bogus.\n  Try this: Read the help: opsctl autocomplete --help\n', stdout: ''})
    expect(shell).toEqual({code: 2, stderr: 'Error: Expected tcsh to be one of: bash, zsh, fish\n  Try this: Read the help: opsctl autocomplete --help\n', stdout: ''})
    const nested = await run(['help', '-n', 'events'])
    expect(nested.code, nested.stderr).toBe(0)
    expect(nested.stdout).toContain('events list')
  })

  it('-h is --help and -v is --version', async () => {
    const [help, longHelp] = await Promise.all([run(['checkout', 'void', '-h']), run(['checkout', 'void', '--help'])])
    expect(help.code).toBe(0)
    expect(help.stdout).toBe(longHelp.stdout)
    const [version, longVersion] = await Promise.all([run(['-v']), run(['--version'])])
    expect(version.code).toBe(0)
    expect(version.stdout).toBe(longVersion.stdout)
  })

  it('an unknown flag is one line of usage error, exit 2, no stack trace', async () => {
    const r = await run(['profile', 'list', '--bogus'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^Error: Unknown flag --bogus\./)
    expect(r.stderr).not.toMatch(/\n\s+at /)
  })
})

describe('--query within bounds', () => {
  // Once each of these aborted the process (heap exhausted, exit 134) or ran for minutes.
  it('a query that would build a huge text is exit 2 with what it asked for, before the command runs', async () => {
    for (const [query, what] of [
      ["pad_right('a', `1000000000`)", 'pad_right to 1000000000'],
      ["pad_left('a', `1000000000`)", 'pad_left to 1000000000'],
      [`replace(${"replace(".repeat(6)}'aaaaaaaaaa'${",'a','aaaaaaaaaa')".repeat(6)},'a','aaaaaaaaaa')`, 'replace'],
    ]) {
      const r = await run(['profile', 'list', '--query', query])
      expect(r.code, query).toBe(2)
      expect(r.stderr, query).toBe(`Error: --query: stopped: ${what} would build more than 1048576 characters\n  Try this: Read the help: opsctl profile list --help\n`)
      expect(r.stdout).toBe('')
    }
  })

  it('replace with a huge count replaces what is there and answers', async () => {
    const r = await run(['profile', 'list', '--query', "replace('a','a','b', `1000000000`)"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('b\n')
  })

  it('a query that runs too long on the document is stopped after its time limit: exit 1, since the command ran', async () => {
    const r = await run(['profile', 'list', '--query', "trim_right(pad_left(profiles[0].name, `1000000`, 'x'), 'x')"])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^Error: --query: stopped: it did not finish within 5 s; the command itself ran, only its output could not be shown\n/)
  })
})

describe('profiles', () => {
  it('profile list --json shows the sandbox profile with masked keys; the file is mode 0600', async () => {
    const r = await run(['profile', 'list', '--json'])
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out.path).toBe(join(configDir, 'profiles.json'))
    expect(out.profiles[0]).toMatchObject({name: 'sandbox', active: true, publicKey: 'pk-s…Ks6', secretKey: 'sk-s…Ui4'})
    expect(r.stdout + r.stderr).not.toMatch(/pk-sandbox-|sk-sandbox-/)
    expect(statSync(out.path).mode & 0o777).toBe(0o600)
  })

  it('profile add reads the secret key from a real stdin pipe and never prints it', async () => {
    const secret = 'sk-live-Pipe-Kk12Ll34Mm56'
    const r = await run(
      [
        'profile',
        'add',
        'prod',
        '--env',
        'production',
        '--health-url',
        'https://h.example.com',
        '--checkout-url',
        'https://p.example.com/checkout',
        '--public-key',
        'pk-live-1234567890',
        '--secret-key-stdin',
        '--json',
      ],
      {},
      `${secret}\n`,
    )
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({name: 'prod', secretKey: 'sk-l…m56'})
    expect(r.stdout + r.stderr).not.toContain(secret)
    expect(JSON.parse(readFileSync(join(configDir, 'profiles.json'), 'utf8')).profiles.prod.checkout.secretKey).toBe(secret)
  })

  it('a hand-broken profiles.json: one line naming the file, exit 2, file untouched', async () => {
    const path = join(configDir, 'profiles.json')
    writeFileSync(path, '{"version": 1, "active": "sandbox", "profiles": {"sandbox": {"env": "staging"}}}')
    const r = await run(['api', 'checkout', 'GET', '/v1/webhooks'])
    expect(r.code).toBe(2)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toContain(`The profiles file ${path} is invalid`)
    expect(readFileSync(path, 'utf8')).toContain('"staging"')
  })

  it('a FIFO in place of profiles.json: one line naming it, exit 2, no wait for a writer', async () => {
    const path = join(configDir, 'profiles.json')
    rmSync(path, {force: true})
    execFileSync('mkfifo', ['-m', '600', path])
    try {
      const r = await run(['profile', 'list'])
      expect(r.code).toBe(2)
      expect(r.stderr.trim()).toBe(`Error: The profiles file ${path} is invalid (not a regular file); fix or move it, nothing was changed`)
    } finally {
      rmSync(path, {force: true})
    }
  })
})

describe('--json failures', () => {
  it('write {"error": ...} to stderr and nothing to stdout', async () => {
    const r = await run(['profile', 'show', 'nope', '--json'])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(JSON.parse(r.stderr)).toEqual({
      error: expect.objectContaining({name: 'UsageError', exitCode: 2, message: 'No profile named "nope"'}),
    })
  })
})

describe('network', () => {
  it('exit 7 against a closed loopback port, for a retried GET and a single POST', async () => {
    const port = await closedPort()
    const env = {OPSCTL_CHECKOUT_URL: `http://127.0.0.1:${port}/checkout`}
    const get = await run(['api', 'checkout', 'GET', '/v1/webhooks'], env)
    expect(get.code).toBe(7)
    expect(get.stdout).toBe('')
    expect(get.stderr).toContain(`http://127.0.0.1:${port} refused the connection`)
    const post = await run(
      ['api', 'checkout', 'POST', '/v1/webhooks', '--data', '{"name":"CHECKOUT_SUCCESS","callbackUrl":"https://m.example.com"}', '--json'],
      env,
    )
    expect(post.code).toBe(7)
    expect(post.stdout).toBe('')
    expect(JSON.parse(post.stderr).error).toMatchObject({name: 'NetworkError', exitCode: 7, outcomeUnknown: false})
  })

  it('a POST whose connection drops: exit 7, says it may have been applied, sent once', async () => {
    let hits = 0
    const server = createServer((req) => {
      hits++
      req.resume()
      req.on('end', () => req.socket.destroy())
    })
    const port = await listen(server)
    try {
      const env = {OPSCTL_CHECKOUT_URL: `http://127.0.0.1:${port}/checkout`}
      const data = '{"reason":"dup","amount":{"value":"1.00","currency":"PHP"}}'
      const human = await run(['api', 'checkout', 'POST', '/v1/checkouts/c-1/refunds', '--data', data], env)
      expect(human.code).toBe(7)
      expect(human.stderr).toContain('the request may have been applied')
      expect(human.stderr).toContain('Try this: Check whether it took effect before sending it again (it was not retried)')
      const json = await run(['api', 'checkout', 'POST', '/v1/checkouts/c-1/refunds', '--data', data, '--json'], env)
      expect(json.stdout).toBe('')
      expect(JSON.parse(json.stderr).error).toMatchObject({name: 'NetworkError', exitCode: 7, outcomeUnknown: true})
      expect(hits).toBe(2)
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })

  it('--timeout: a server that never answers is exit 7 and the process ends at once', async () => {
    // Timed from the request's arrival, not from the start: a loaded machine may take seconds to start node.
    let arrived = Number.NaN
    const server = createServer(() => {
      arrived = performance.now()
    })
    const port = await listen(server)
    try {
      const r = await run(['api', 'checkout', 'GET', '/v1/webhooks', '--timeout', '1'], {
        OPSCTL_CHECKOUT_URL: `http://127.0.0.1:${port}/checkout`,
      })
      expect(r.code).toBe(7)
      expect(r.stderr).toContain('timed out after 1 s')
      expect(performance.now() - arrived).toBeLessThan(6000)
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })

  it('a Retry-After longer than --timeout does not keep the process alive', async () => {
    let hits = 0
    let arrived = Number.NaN
    const server = createServer((_req, res) => {
      hits++
      arrived = performance.now()
      res.writeHead(503, {'content-type': 'application/json', 'retry-after': '20'})
      res.end('{"message":"maintenance"}')
    })
    const port = await listen(server)
    try {
      const r = await run(['api', 'checkout', 'GET', '/v1/webhooks', '--timeout', '2'], {
        OPSCTL_CHECKOUT_URL: `http://127.0.0.1:${port}/checkout`,
      })
      expect(r.code).toBe(6)
      expect(r.stderr).toContain('maintenance')
      expect(hits).toBe(1)
      // Waiting out the Retry-After would take 20 s from the answer.
      expect(performance.now() - arrived).toBeLessThan(6000)
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })
})
