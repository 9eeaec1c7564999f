/**
 * bin/run.js starts a command without oclif's Config when the build's index names it
 * (src/startup/direct-start.ts). What it finds must be what oclif would run, with the argv oclif
 * would give it, and the light config must read as oclif's own; anything else is oclif's to answer.
 */
import {Config} from '@oclif/core'
import {normalizeArgv} from '@oclif/core/help'
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'

import {type CommandIndex, directCommand, NEEDS_FULL_CONFIG} from '../../src/startup/direct-start.js'
import {lightConfig} from '../../src/startup/light-config.js'
import {ROOT} from '../helpers/command.js'

const index = JSON.parse(readFileSync(join(ROOT, 'dist', 'command-index.json'), 'utf8')) as CommandIndex

afterEach(() => {
  vi.unstubAllEnvs()
})

describe('the command a direct start runs', () => {
  it('is the one oclif runs, with the same argv, for every command line oclif would run it for', async () => {
    const config = await Config.load({root: ROOT})
    const lines: string[][] = []
    for (const id of Object.keys(index.commands)) {
      const words = id.split(':')
      lines.push(words, [...words, '--json'], [...words, 'an-id', '-o', 'csv'], [...words, 'list'], [...words, '--', '--help'], words.slice(0, -1))
    }

    lines.push(['profile', 'rm', 'staging'], ['webhook', 'lst'], ['evnts', 'list', 'me'], ['events', 'list', 'me', 'list'], ['sandbox', 'tenant', 'create', 'x'])
    let direct = 0
    for (const argv of lines) {
      const found = directCommand(index, argv)
      if (!found) continue
      direct++
      const [id, ...rest] = normalizeArgv(config, argv)
      expect({argv: found.argv, id: found.id}, argv.join(' ')).toEqual({argv: rest, id})
      expect(config.findCommand(id)?.id, argv.join(' ')).toBe(id)
    }

    // At least every command but those that need oclif's whole Config, typed alone and with --json.
    expect(direct).toBeGreaterThanOrEqual((Object.keys(index.commands).length - NEEDS_FULL_CONFIG.size) * 2)
    for (const id of Object.keys(index.commands)) {
      if (!NEEDS_FULL_CONFIG.has(id)) expect(directCommand(index, [...id.split(':'), '--json'])?.id).toBe(id)
    }
  })

  it('leaves to oclif help, topics, typos, aliases, the colon spelling and flags before the command', () => {
    for (const argv of [
      [],
      ['webhook', 'list', '--help'],
      ['webhook', 'list', '-h'],
      ['webhook'],
      ['webhook', 'lst'],
      ['profile', 'rm', 'staging'],
      ['webhook:list'],
      ['--json', 'webhook', 'list'],
      ['help', 'webhook'],
      ['complete', '--', 'webhook'],
      ['autocomplete', 'zsh'],
      ['scenario', 'run', 'x.yaml'],
    ]) {
      expect(directCommand(index, argv), argv.join(' ')).toBeUndefined()
    }

    expect(directCommand(index, ['api', 'checkout', 'GET', '/v1/x', '--', '--help'])).toEqual({argv: ['checkout', 'GET', '/v1/x', '--', '--help'], id: 'api'})
  })

  it('is never a command that reads more of oclif Config than the light config has', () => {
    const commandsDir = join(ROOT, 'src', 'commands')
    for (const file of readdirSync(commandsDir, {recursive: true}) as string[]) {
      if (!file.endsWith('.ts')) continue
      const id = file.replace(/\.ts$/, '').split(/[\\/]/).join(':')
      const readsConfig = /this\.config\b/.test(readFileSync(join(commandsDir, file), 'utf8'))
      if (readsConfig) expect(NEEDS_FULL_CONFIG.has(id), `${file} reads this.config: add ${id} to NEEDS_FULL_CONFIG`).toBe(true)
    }
  })
})

describe('the light config', () => {
  const environments: Record<string, string | undefined>[] = [
    {OPSCTL_CONFIG_DIR: undefined, XDG_CONFIG_HOME: undefined},
    {OPSCTL_CONFIG_DIR: undefined, XDG_CONFIG_HOME: '/tmp/xdg-config'},
    {OPSCTL_CONFIG_DIR: '/tmp/opsctl-own', XDG_CONFIG_HOME: '/tmp/xdg-config'},
    {HOME: '/tmp/another-home', OPSCTL_CONFIG_DIR: '', XDG_CONFIG_HOME: ''},
  ]
  for (const environment of environments) {
    it(`reads as oclif's Config under ${JSON.stringify(environment)}`, async () => {
      for (const [name, value] of Object.entries(environment)) vi.stubEnv(name, value)
      vi.stubEnv('OPSCTL_CONTENT_TYPE', 'json')
      const oclif = await Config.load({root: ROOT})
      const light = lightConfig(ROOT, index)
      const fields = (c: Omit<typeof light, 'runHook'>) => ({
        bin: c.bin,
        configDir: c.configDir,
        contentType: c.scopedEnvVar('CONTENT_TYPE'),
        dirname: c.dirname,
        key: c.scopedEnvVarKey('REDIRECTED'),
        keys: c.scopedEnvVarKeys('REDIRECTED'),
        name: c.name,
        root: c.root,
        userAgent: c.userAgent,
        version: c.version,
      })
      expect(fields(light)).toEqual(fields(oclif))
      expect(light.configDir).not.toBe('')
    })
  }
})
