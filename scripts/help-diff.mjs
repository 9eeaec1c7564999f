#!/usr/bin/env node
/**
 * Help is the same, byte for byte, in this build and another (`--bin other/bin/run.js`, after
 * `npm run build` in both): every command's `--help` and `help <command>`, every topic alone and
 * with `--help`, the root help (no words, `--help`, `-h`, `help`), `help <topic>` of each help
 * topic and a few mistakes (`help nosuch`, `checkout nosuch --help`), at 40, 61, 80 and 133 columns
 * (OCLIF_COLUMNS and COLUMNS through a pipe; the root help, the help topics and a command's and a
 * topic's help also in a pseudo-terminal of that width when `script` is there), with NO_COLOR and with FORCE_COLOR. stdout, stderr and the exit code are compared; the
 * first differences are printed and the exit code is 1 when there is one.
 *
 *   node scripts/help-diff.mjs --bin other/bin/run.js [--jobs 2] [--no-tty] [--columns 40,61,80,133]
 */
import {spawn, spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {parseArgs} from 'node:util'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const {values} = parseArgs({
  options: {bin: {type: 'string'}, columns: {default: '40,61,80,133', type: 'string'}, jobs: {default: '2', type: 'string'}, 'no-tty': {type: 'boolean'}},
})
if (!values.bin) throw new Error('--bin other/bin/run.js is required')
const bins = [join(ROOT, 'bin', 'run.js'), resolve(values.bin)]
const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8'))
const topics = Object.keys(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).oclif.topics)

const words = (id) => id.split(':')
const argvs = [[], ['--help'], ['-h'], ['help'], ['help', 'environment'], ['help', 'exit-codes'], ['help', 'nosuch'], ['checkout', 'nosuch', '--help'], ['help', '--nested-commands']]
// In a terminal too (the width read from it): these, a topic's help and a command's.
const TTY_TOO = new Set([...argvs.map((a) => a.join(' ')), 'checkout', 'checkout list --help', 'help checkout list'])
for (const id of Object.keys(manifest.commands)) argvs.push([...words(id), '--help'], ['help', ...words(id)])
for (const topic of topics) argvs.push(words(topic), [...words(topic), '--help'], ['help', ...words(topic)])
const hasScript = !values['no-tty'] && spawnSync('script', ['--version']).status === 0
const cases = []
for (const argv of argvs)
  for (const columns of values.columns.split(',').map(Number))
    for (const color of ['NO_COLOR', 'FORCE_COLOR']) {
      cases.push({argv, color, columns, tty: false})
      if (hasScript && TTY_TOO.has(argv.join(' '))) cases.push({argv, color, columns, tty: true})
    }

const dir = mkdtempSync(join(tmpdir(), 'opsctl-help-diff-'))
const base = {}
for (const [k, v] of Object.entries(process.env)) if (!/^(OPSCTL_|NODE_OPTIONS$|NODE_EXTRA_CA_CERTS$|NO_COLOR$|FORCE_COLOR$|COLUMNS$|OCLIF_)/.test(k)) base[k] = v

const quote = (s) => `'${s.replaceAll("'", `'\\''`)}'`

function run(bin, {argv, color, columns, tty}, i) {
  const env = {...base, [color]: '1', OPSCTL_CACHE_DIR: join(dir, `cache-${i}`), OPSCTL_CONFIG_DIR: join(dir, 'config')}
  if (!tty) Object.assign(env, {COLUMNS: String(columns), OCLIF_COLUMNS: String(columns)})
  const [cmd, args] = tty
    ? ['script', ['-qec', `stty cols ${columns} rows 50; ${[process.execPath, bin, ...argv].map(quote).join(' ')}`, '/dev/null']]
    : [process.execPath, [bin, ...argv]]
  return new Promise((done) => {
    const child = spawn(cmd, args, {cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe']})
    const out = []
    const err = []
    child.stdout.on('data', (d) => out.push(d))
    child.stderr.on('data', (d) => err.push(d))
    child.on('close', (code) => done(`exit ${code}\n--- stdout\n${Buffer.concat(out).toString('latin1')}\n--- stderr\n${Buffer.concat(err).toString('latin1')}`))
  })
}

let next = 0
let differ = 0
async function worker() {
  while (next < cases.length) {
    const c = cases[next++]
    const [a, b] = [await run(bins[0], c, 0), await run(bins[1], c, 1)]
    if (a === b) continue
    if (++differ <= 5) {
      process.stdout.write(`\n== differs: ${c.argv.join(' ') || '(no words)'} at ${c.columns} columns, ${c.color}${c.tty ? ', terminal' : ''}\n`)
      const [la, lb] = [a.split('\n'), b.split('\n')]
      const at = la.findIndex((line, i) => line !== lb[i])
      process.stdout.write(`line ${at + 1}\n this: ${JSON.stringify(la[at])}\nother: ${JSON.stringify(lb[at])}\n`)
    }
  }
}

try {
  await Promise.all(Array.from({length: Math.max(1, Number(values.jobs) || 2)}, worker))
  process.stdout.write(`${cases.length} cases (${argvs.length} command lines${hasScript ? ', pipe and terminal' : ''}): ${differ} differ\n`)
  process.exitCode = differ === 0 ? 0 : 1
} finally {
  rmSync(dir, {force: true, recursive: true})
}
