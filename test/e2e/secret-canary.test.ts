/**
 * Canary test: every command of the CLI, against a loopback server that echoes every request it
 * gets (headers, cookie, body) into its error answers: 401 and 500, JSON and text bodies, and a
 * response header. The profile and environment hold canary keys, a canary session, and the
 * commands get canary passwords and a canary card number. No canary may appear, in any form a
 * request carries it in, on stdout, on stderr, or in any file of the config folder except
 * profiles.json (which holds credentials by design, mode 0600).
 *
 * The commands come from the built oclif.manifest.json: a new command without an entry in ARGV
 * below fails the first test. Every variant runs in-process (test/helpers/command.ts) plain, with
 * --verbose and with --json, against every answer kind. In-process there is no stream guard
 * (bin/run.js installs it): the commands themselves must not print a secret, a stricter test than
 * a process gives. What only a process shows runs as one (PROCESS_RUNS). Run `npm run build` first.
 */
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createServer, type IncomingHttpHeaders, type Server, type ServerResponse} from 'node:http'
import {type AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {dirname, join, relative} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {isolate, runCommand} from '../helpers/command.js'
import {ROOT, runCli} from './harness.js'

const CANARY = {
  secretKey: 'sk-canary-Hd5Fg2+Jk8/Lp3~?',
  publicKey: 'pk-canary-Zq3Xb8~Lm2+Nc7?',
  // connect.sid values are stored URL-encoded, as the cookie carries them
  session: 's%3Acanary-Sess-Vt4Rw9.Yh1%2FKs6',
  returnedSession: 's%3Acanary-Ret-Qw7Er1.Ty6%2BUi4',
  password: 'canary Pässw0rd "Mn8" +/=',
  flagPassword: 'canary-FlagPw-Xy12Ab',
  // On a scenario step's command line: the step's name, XML-escaped in a JUnit report.
  markupPassword: `canary&Mk4"Zr9Pw"`,
  card: '4000 1234 5678 9010',
} as const
const CVC = '987'
const CID = 'chk-canary-1'
const UID = 'u-1'
const EVENT = '65f1c0ffee0000000000abcd'
const MED = 'med-salbutamol'
const MAC = 'AA:BB:CC:DD:EE:01'

/** Answer kinds of the echo server, chosen by the first path segment of the base URLs. */
const ERROR_MODES = ['e401json', 'e401text', 'e500json', 'e500text'] as const
/** Sign-in and createUser succeed and set a new canary session, which the answer body also shows. */
const OK_MODE = 'ok'
type Mode = (typeof ERROR_MODES)[number] | typeof OK_MODE
const OUTPUTS: Record<string, string[]> = {plain: [], verbose: ['--verbose'], json: ['--json']}

interface Variant {
  argv: string[]
  stdin?: string
  /** sends nothing (profiles, the local audit log, local tables, a sandbox that cannot bind its port) */
  local?: boolean
  /** server answer kinds to run it against (default: every error mode) */
  modes?: readonly Mode[]
  /** a command of oclif's own kind (help, completion): no --verbose or --json, run plain only */
  plainOnly?: boolean
}

interface Ctx {
  configDir: string
  /** the echo server's port: taken, for `sandbox start` */
  port: number
  scenarioFile: string
}

const signUp = ['users', 'create', '--type', 'patient', '--email', 'ana@example.com', '--given-name', 'Ana', '--family-name', 'Cruz']

/** Each command with the arguments it needs, and every secret-carrying way to call it. */
const ARGV: Record<string, (c: Ctx) => Variant[]> = {
  api: () => [
    {argv: ['api', 'health', 'POST', '/api/sign-in', '--data', JSON.stringify({email: 'ana@example.com', password: CANARY.flagPassword})]},
    {argv: ['api', 'health', 'GET', '/api/users/me']},
    {argv: ['api', 'checkout', 'GET', '/v1/webhooks']},
  ],
  'audit:access': () => [{argv: ['audit', 'access'], local: true}],
  'audit:list': () => [{argv: ['audit', 'list'], local: true}],
  autocomplete: () => [{argv: ['autocomplete', 'bash', '--script'], local: true, plainOnly: true}],
  complete: () => [{argv: ['complete', '--', 'webhook', 'list', '-p', ''], local: true, plainOnly: true}],
  'checkout:create': () => [{argv: ['checkout', 'create', '--amount', '10.00', '--success-url', 'https://shop.example/ok']}],
  'checkout:get': () => [{argv: ['checkout', 'get', CID]}],
  'checkout:list': () => [{argv: ['checkout', 'list'], local: true}, {argv: ['checkout', 'list', '--sandbox-seeded']}],
  'checkout:reconcile': () => [{argv: ['checkout', 'reconcile', '--from-file', '-'], stdin: `checkoutId,amount,currency,state\n${CID},10.00,PHP,paid\n`}],
  'checkout:pay': () => [{argv: ['checkout', 'pay', CID, '--card', CANARY.card, '--cvc', CVC, '--expiry', '12/30']}],
  'checkout:void': () => [{argv: ['checkout', 'void', CID, '--reason', 'canary', '--yes']}],
  'customize:get': () => [{argv: ['customize', 'get']}],
  'customize:remove': () => [{argv: ['customize', 'remove', '--yes']}],
  'customize:set': () => [
    {
      argv: [
        'customize',
        'set',
        '--logo-url',
        'https://shop.example/logo.png',
        '--icon-url',
        'https://shop.example/i.ico',
        '--apple-touch-icon-url',
        'https://shop.example/t.png',
        '--title',
        'Tea',
        '--color',
        '#0a7d3b',
      ],
    },
  ],
  'events:add': () => [{argv: ['events', 'add', UID, '--medication-id', MED, '--medication-type', 'rescue', '--symptom', 'cough']}],
  'events:delete': () => [{argv: ['events', 'delete', UID, EVENT, '--yes']}],
  'events:get': () => [{argv: ['events', 'get', UID, EVENT]}],
  'events:list': () => [{argv: ['events', 'list', 'me']}],
  'events:update': () => [{argv: ['events', 'update', UID, EVENT, '--doses', '2']}],
  'groups:config': () => [{argv: ['groups', 'config', 'demo-clinic']}],
  'metrics:get': () => [{argv: ['metrics', 'get', UID, '--name', 'eventsRescue', '--period', 'daily']}],
  'metrics:names': () => [{argv: ['metrics', 'names'], local: true}],
  'plan:medication:add': () => [{argv: ['plan', 'medication', 'add', UID, '--medication-id', 'med-fluticasone', '--usage', '08:00=2']}],
  'plan:medication:delete': () => [{argv: ['plan', 'medication', 'delete', UID, MED, '--yes']}],
  'plan:medication:update': () => [{argv: ['plan', 'medication', 'update', UID, MED, '--usage', '07:30=1']}],
  'plan:sensor:add': () => [{argv: ['plan', 'sensor', 'add', UID, MED, '--mac', MAC, '--model', 'hfa-sensor']}],
  'plan:sensor:delete': () => [{argv: ['plan', 'sensor', 'delete', UID, MED, MAC, '--yes']}],
  'plan:show': () => [{argv: ['plan', 'show', UID]}],
  'profile:add': () => [
    {
      argv: ['profile', 'add', 'prod', '--health-url', 'https://health.example.com', '--checkout-url', 'https://pay.example.com'],
      stdin: CANARY.secretKey,
      local: true,
    },
    {
      argv: ['profile', 'add', 'prod2', '--env', 'sandbox', '--public-key', CANARY.publicKey, '--secret-key-stdin'],
      stdin: CANARY.secretKey,
      local: true,
    },
  ],
  help: () => [{argv: ['help'], local: true, plainOnly: true}],
  'profile:check': () => [{argv: ['profile', 'check']}],
  'profile:list': () => [{argv: ['profile', 'list'], local: true}],
  'profile:remove': () => [{argv: ['profile', 'remove', 'spare', '--yes'], local: true}],
  'profile:set': () => [
    {argv: ['profile', 'set', 'spare', 'secret-key'], stdin: CANARY.secretKey, local: true},
    {argv: ['profile', 'set', 'spare', 'language', 'fil-PH'], local: true},
  ],
  'profile:show': () => [
    {argv: ['profile', 'show'], local: true},
    {argv: ['profile', 'show', 'spare'], local: true},
  ],
  'profile:use': () => [{argv: ['profile', 'use', 'spare'], local: true}],
  'refund:create': () => [{argv: ['refund', 'create', CID, '--reason', 'canary', '--amount', '5.00', '--yes']}],
  'refund:get': () => [{argv: ['refund', 'get', CID, 'rf-1']}],
  'refund:list': () => [{argv: ['refund', 'list', CID]}],
  'sandbox:clock': () => [{argv: ['sandbox', 'clock']}],
  // Against the echo server, compared with an embedded sandbox: the report shows types and codes, never a value it echoed.
  'sandbox:diff': () => [{argv: ['sandbox', 'diff', '--against', 'canary', '--yes']}],
  'sandbox:export': (c) => [{argv: ['sandbox', 'export', join(c.configDir, 'exported.json')]}],
  'sandbox:import': (c) => [{argv: ['sandbox', 'import', join(dirname(c.scenarioFile), 'canary-state.json'), '--yes']}],
  // Its port is taken (by the echo server): it fails at once instead of serving forever.
  'sandbox:start': (c) => [{argv: ['sandbox', 'start', '--host', '127.0.0.1', '--port', String(c.port)], local: true}],
  'sandbox:reset': () => [{argv: ['sandbox', 'reset', '--yes']}],
  'sandbox:tenant:create': () => [{argv: ['sandbox', 'tenant', 'create', '--save-profile', 'tenant-1']}],
  'sandbox:tenant:delete': () => [{argv: ['sandbox', 'tenant', 'delete', 'tn_0123456789abcdef', '--yes']}],
  'sandbox:tenant:list': () => [{argv: ['sandbox', 'tenant', 'list']}],
  // One step (run in-process by the scenario runner, its output captured), one server mode, to keep the run short.
  'scenario:run': (c) => [{argv: ['scenario', 'run', c.scenarioFile, '--junit-file', join(c.configDir, 'scenario.xml')], modes: ['e401json']}],
  'scenario:schema': () => [{argv: ['scenario', 'schema'], local: true}],
  smoke: (c) => [{argv: ['smoke', '--bail', '--junit-file', join(c.configDir, 'smoke.xml')]}],
  'users:create': () => [
    {argv: [...signUp, '--password-stdin'], stdin: CANARY.password},
    {argv: [...signUp, '--password-stdin'], stdin: CANARY.password, modes: [OK_MODE]},
  ],
  'users:get': () => [{argv: ['users', 'get', UID]}],
  'users:inspect': () => [{argv: ['users', 'inspect', UID]}],
  'users:login': () => [
    {argv: ['users', 'login', '--email', 'ana@example.com', '--password-stdin'], stdin: CANARY.password},
    {argv: ['users', 'login', '--email', 'ana@example.com', '--password', CANARY.flagPassword]},
    {argv: ['users', 'login', '--email', 'ana@example.com', '--password-stdin'], stdin: CANARY.password, modes: [OK_MODE]},
  ],
  // Forgets the stored session; the service has no sign-out.
  'users:logout': () => [{argv: ['users', 'logout'], local: true}],
  'users:me': () => [{argv: ['users', 'me']}],
  'webhook:delete': () => [{argv: ['webhook', 'delete', 'wh-1', '--yes']}],
  'webhook:deliveries': () => [{argv: ['webhook', 'deliveries', '--checkout', CID]}],
  'webhook:list': () => [{argv: ['webhook', 'list']}],
  // --register reads the webhooks first; the echo server refuses, so the listener stops at once.
  'webhook:listen': () => [{argv: ['webhook', 'listen', '--register']}],
  'webhook:resend': () => [{argv: ['webhook', 'resend', 'dl-1']}],
  'webhook:register': () => [{argv: ['webhook', 'register', '--name', 'CHECKOUT_SUCCESS', '--url', 'https://shop.example/hooks/paid']}],
  'webhook:update': () => [{argv: ['webhook', 'update', 'wh-1', '--url', 'https://shop.example/hooks/v2']}],
}

// ---- what counts as a leak (written apart from src/http/secrets on purpose) ----

function formsOf(secret: string): string[] {
  const forms = new Set<string>()
  for (const s of [secret, decodeURIComponent(secret)]) {
    forms.add(s)
    forms.add(encodeURIComponent(s))
    forms.add(JSON.stringify(s).slice(1, -1))
    forms.add(
      JSON.stringify(s)
        .slice(1, -1)
        .replaceAll(/[^\u0020-\u007E]/g, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`),
    )
    // As XML and HTML show it (a JUnit test named after the command line that carries it).
    forms.add(s.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll("'", '&apos;').replaceAll('<', '&lt;'))
    forms.add(s.replaceAll('&', '&amp;').replaceAll('"', '&#34;').replaceAll("'", '&#39;').replaceAll('<', '&lt;'))
    for (const plain of [`${s}:`, s]) {
      const base64 = Buffer.from(plain).toString('base64')
      forms.add(base64)
      forms.add(base64.replace(/=+$/, ''))
      forms.add(Buffer.from(plain).toString('base64url'))
    }
  }

  return [...forms]
}

const CARD_DIGITS = CANARY.card.replaceAll(' ', '')
const CARD_ANY_GROUPING = new RegExp([...CARD_DIGITS].join(String.raw`(?:[\s-]|%20|\+)?`))
const FORMS = Object.entries(CANARY)
  .filter(([name]) => name !== 'card')
  .map(([name, value]) => ({name, forms: formsOf(value)}))
/** A fragment from the middle of each secret: a truncated or re-wrapped echo still shows it. */
const FRAGMENTS = {
  secretKey: 'Hd5Fg2',
  publicKey: 'Zq3Xb8',
  session: 'Vt4Rw9',
  returnedSession: 'Qw7Er1',
  password: 'Pässw0rd',
  flagPassword: 'FlagPw',
  markupPassword: 'Zr9Pw',
}

function leaksIn(text: string): string[] {
  const found: string[] = []
  for (const {name, forms} of FORMS) {
    const form = forms.find((f) => text.includes(f))
    if (form) found.push(`${name} as "${form}"`)
  }

  for (const [name, fragment] of Object.entries(FRAGMENTS)) if (text.includes(fragment)) found.push(`${name} (fragment ${fragment})`)
  const card = CARD_ANY_GROUPING.exec(text)
  if (card) found.push(`card as "${card[0]}"`)
  return found
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, {recursive: true, withFileTypes: true})
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
}

/** stdout, stderr and the config folder's files (profiles.json aside): every leak, named by where. */
function leaksOf(run: {stdout: string; stderr: string}, configDir: string): string[] {
  const places: [string, string][] = [
    ['stdout', run.stdout],
    ['stderr', run.stderr],
    ...filesUnder(configDir)
      .filter((f) => relative(configDir, f) !== 'profiles.json')
      .map((f): [string, string] => [relative(configDir, f), readFileSync(f, 'utf8')]),
  ]
  return places.flatMap(([where, text]) => leaksIn(text).map((leak) => `${leak} in ${where}`))
}

// ---- the echo servers ----

interface Received {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
}

/** An echo server; the runs that use one use it alone, so what it received during a run is that run's. */
interface Echo {
  origin: string
  port: number
  received: Received[]
  server: Server
}

const asciiJson = (value: unknown) =>
  JSON.stringify(value).replaceAll(/[^\u0020-\u007E]/g, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`)

function answer(req: Received, res: ServerResponse): void {
  const mode = req.url.split('/')[1]
  if (mode === OK_MODE && req.method === 'POST' && /\/api\/(sign-in|users)$/.test(req.url)) {
    const user = {id: 'u-canary', email: 'ana@example.com', role: 'patient', givenName: 'Ana', familyName: 'Cruz'}
    res.writeHead(req.url.endsWith('users') ? 201 : 200, {
      'content-type': 'application/json',
      'set-cookie': `connect.sid=${CANARY.returnedSession}; Path=/; HttpOnly`,
    })
    res.end(JSON.stringify({...user, note: `your session is ${decodeURIComponent(CANARY.returnedSession)}`}))
    return
  }

  if (req.method === 'GET' && /\/pay\/[^/]+$/.test(req.url)) {
    // A payment page whose form posts back to itself: the card is sent, and the POST is echoed.
    res.writeHead(200, {'content-type': 'text/html'}).end('<html><body><form method="post" action=""></form></body></html>')
    return
  }

  const echo = {method: req.method, url: req.url, headers: req.headers, body: req.body}
  const status = mode.startsWith('e401') ? 401 : 500
  const headers = {
    'x-echo': asciiJson(echo),
    'x-request-id': String(req.headers.authorization ?? req.headers.cookie ?? 'none'),
  }
  if (String(req.headers.accept).includes('text/html')) {
    // The payment page says why in its message paragraph, which `checkout pay` shows.
    const html = JSON.stringify(echo).replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('"', '&quot;')
    res.writeHead(status, {...headers, 'content-type': 'text/html'}).end(`<html><body><p class="message">echo ${html}</p></body></html>`)
    return
  }

  if (mode.endsWith('text')) {
    res.writeHead(status, {...headers, 'content-type': 'text/plain'}).end(`echo ${JSON.stringify(echo)}\n${req.body}`)
    return
  }

  res.writeHead(status, {...headers, 'content-type': 'application/json'})
  res.end(
    JSON.stringify({
      message: `echo ${JSON.stringify(echo)}`,
      code: 'ECHO',
      parameters: [
        {field: 'authorization', description: String(req.headers.authorization)},
        {field: 'cookie', description: String(req.headers.cookie)},
        {field: 'body', description: req.body},
      ],
      reference: String(req.headers.authorization ?? req.headers.cookie ?? 'none'),
    }),
  )
}

async function startEcho(): Promise<Echo> {
  const received: Received[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (d: string) => (body += d))
    req.on('end', () => {
      const r = {body, headers: req.headers, method: req.method ?? '', url: req.url ?? ''}
      received.push(r)
      answer(r, res)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const {port} = server.address() as AddressInfo
  return {origin: `http://127.0.0.1:${port}`, port, received, server}
}

/** Every echo server started, so the last test can check what they received. */
const echoes: Echo[] = []

/** An echo server of its own for `use`: what it received during the run is that run's. */
async function withEcho<T>(use: (echo: Echo) => Promise<T>): Promise<T> {
  const echo = await startEcho()
  echoes.push(echo)
  try {
    return await use(echo)
  } finally {
    echo.server.closeAllConnections()
    await new Promise((r) => echo.server.close(r))
  }
}

let scratch: string

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'opsctl-canary-'))
  const step = `opsctl users login --email ana@example.com --password ${CANARY.flagPassword} --json`
  writeFileSync(join(scratch, 'canary-state.json'), JSON.stringify({version: 2, checkout: {webhooks: []}}))
  const markup = `opsctl users login --email ana@example.com --password '${CANARY.markupPassword}' --json`
  writeFileSync(join(scratch, 'canary.yaml'), `name: canary\nsteps:\n  - run: ${step}\n    expect: {exit: 0}\n  - run: ${markup}\n`)
})

afterAll(async () => {
  rmSync(scratch, {force: true, recursive: true})
})

/** A config folder whose active profile holds the canaries and points at an echo server in one mode. */
function canaryConfig(configDir: string, echo: Echo, mode: Mode): void {
  const profile = (prefix: string) => ({
    env: 'sandbox',
    health: {baseUrl: `${echo.origin}/${prefix}`, apiVersion: '3.14.0', session: CANARY.session, userId: UID},
    checkout: {baseUrl: `${echo.origin}/${prefix}/checkout`, publicKey: CANARY.publicKey, secretKey: CANARY.secretKey},
  })
  mkdirSync(configDir, {recursive: true})
  const file = {version: 1, active: 'canary', profiles: {canary: profile(mode), spare: profile('e500json')}}
  writeFileSync(join(configDir, 'profiles.json'), JSON.stringify(file, null, 2), {mode: 0o600})
}

function variantsOf(id: string, configDir: string, echo: Pick<Echo, 'port'>): Variant[] {
  return ARGV[id]({configDir, port: echo.port, scenarioFile: join(scratch, 'canary.yaml')})
}

function describeRun(id: string, v: Variant, mode: Mode, output: string): string {
  return `${id} [${mode}, ${output}] ${v.argv.join(' ')}`
}

/** Runs whose output showed [REDACTED]: the echo reached the output and was scrubbed, rather than never shown. */
const shownRedacted: string[] = []
/** Runs that wrote the audit log: the echo reached a file in the config folder too. */
let auditedRuns = 0

describe('the commands', () => {
  it('the table has exactly the commands of the built manifest', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, unknown>}
    expect(Object.keys(ARGV).sort()).toEqual(Object.keys(manifest.commands).sort())
  })
})

describe('in-process: plain, --verbose and --json, against 401 and 500 echoes in JSON, text and a header', () => {
  for (const id of Object.keys(ARGV).sort()) {
    for (const [output, extra] of Object.entries(OUTPUTS)) {
      it(`${id} (${output})`, async () => {
        // From src, as the other command tests do: the same module instances as the secret registry imported here.
        const {default: Cmd} = await import(join(ROOT, 'src/commands', `${id.replaceAll(':', '/')}.ts`))
        const problems: string[] = []
        await withEcho(async (echo) => {
          const count = variantsOf(id, scratch, echo).length
          for (let index = 0; index < count; index++) {
            for (const mode of variantsOf(id, scratch, echo)[index].modes ?? ERROR_MODES) {
              const env = isolate()
              try {
                canaryConfig(env.dir, echo, mode)
                const variant = variantsOf(id, env.dir, echo)[index]
                if (variant.plainOnly && output !== 'plain') continue
                const before = echo.received.length
                // runCommand forgets every known secret first, as a fresh process starts: none may hide a leak.
                const r = await runCommand(Cmd, [...variant.argv.slice(id.split(':').length), ...extra], {stdin: variant.stdin})
                const name = describeRun(id, variant, mode, output)
                problems.push(...leaksOf(r, env.dir).map((l) => `${name}: ${l}`))
                if (!variant.local && echo.received.length === before)
                  problems.push(`${name}: sent nothing (exit ${r.code}: ${r.stderr.trim()})`)
                if ((r.stdout + r.stderr).includes('[REDACTED]')) shownRedacted.push(name)
                if (existsSync(join(env.dir, 'audit.jsonl'))) auditedRuns++
              } finally {
                env.cleanup()
              }
            }
          }
        })

        expect(problems.join('\n')).toBe('')
      })
    }
  }
})

/**
 * What only a real process shows: with DEBUG=*, oclif prints argv and its configuration as it
 * loads, before any opsctl code runs, and bin/run.js registers the secrets of argv and of the
 * environment and guards stdout and stderr before that. That start is the same for every command;
 * what differs is how a secret reaches the process, and how the process ends. One run for each.
 */
const PROCESS_RUNS: {id: string; variant: number; why: string}[] = [
  {id: 'users:login', variant: 1, why: 'a password as a flag value in argv'},
  {id: 'api', variant: 0, why: 'a password inside a JSON --data argument'},
  {id: 'checkout:pay', variant: 0, why: 'a card number and a CVC in argv; the buyer posts the page'},
  {id: 'users:create', variant: 1, why: 'a password on stdin; a new session answered and stored'},
  {id: 'profile:add', variant: 1, why: 'a public key in argv and a secret key on stdin; nothing sent'},
  {id: 'refund:create', variant: 0, why: 'the keys only in OPSCTL_* variables; the audit log written'},
  {id: 'users:me', variant: 0, why: 'the session only in OPSCTL_HEALTH_SESSION'},
  {id: 'sandbox:start', variant: 0, why: 'fails as it starts: its port is taken'},
  {id: 'webhook:listen', variant: 0, why: 'a long-running command that stops on an error'},
  {id: 'scenario:run', variant: 0, why: 'its step carries a password in its argv'},
  {id: 'smoke', variant: 0, why: 'many requests in one run; a JUnit file written'},
]

// One at a time: two cores, and another test file running beside this one.
describe('real processes with DEBUG=* (oclif prints argv) and the canaries in OPSCTL_* variables', () => {
  for (const [turn, {id, variant: index, why}] of PROCESS_RUNS.entries()) {
    it(`${id}: ${why}`, async () => {
      const problems: string[] = []
      await withEcho(async (echo) => {
        const configDir = mkdtempSync(join(tmpdir(), 'opsctl-canary-proc-'))
        try {
          const variant = variantsOf(id, configDir, echo)[index]
          // The server's answer kinds take turns across the runs.
          const modes = variant.modes ?? ERROR_MODES
          const mode = modes[turn % modes.length]
          canaryConfig(configDir, echo, mode)
          const before = echo.received.length
          const r = await runCli(variant.argv, {
            env: {
              DEBUG: '*',
              OPSCTL_CONFIG_DIR: configDir,
              OPSCTL_HEALTH_SESSION: CANARY.session,
              OPSCTL_CHECKOUT_PUBLIC_KEY: CANARY.publicKey,
              OPSCTL_CHECKOUT_SECRET_KEY: CANARY.secretKey,
            },
            input: variant.stdin,
          })
          const name = describeRun(id, variant, mode, 'DEBUG=*')
          problems.push(...leaksOf(r, configDir).map((l) => `${name}: ${l}`))
          if (!r.stderr.includes('oclif:')) problems.push(`${name}: no DEBUG output on stderr`)
          if (!variant.local && echo.received.length === before) problems.push(`${name}: sent nothing (exit ${r.code})`)
        } finally {
          rmSync(configDir, {force: true, recursive: true})
        }
      })

      expect(problems.join('\n')).toBe('')
    })
  }
})

describe('the canaries', () => {
  it('the echo servers did receive every canary, and the CLI showed [REDACTED] where they echoed one', () => {
    const all = echoes
      .flatMap((e) => e.received)
      .map((r) => `${r.headers.authorization ?? ''} ${r.headers.cookie ?? ''} ${r.body}`)
      .join('\n')
    const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`
    expect(all).toContain(basic(CANARY.secretKey))
    expect(all).toContain(basic(CANARY.publicKey))
    expect(all).toContain(`connect.sid=${CANARY.session}`)
    expect(all).toContain(JSON.stringify(CANARY.password))
    expect(all).toContain(CANARY.flagPassword)
    expect(all).toContain(`cardNumber=${CARD_DIGITS}`)
    expect(shownRedacted.length).toBeGreaterThan(100)
    expect(auditedRuns).toBeGreaterThan(10)
  })
})
