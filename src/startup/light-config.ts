import type {Config} from '@oclif/core'

/**
 * What a command reads of oclif's Config when bin/run.js starts it directly (./direct-start.ts),
 * computed the way oclif's `Config.load` computes it, without loading the plugin, the manifest and
 * the rest of oclif. `test/unit/direct-start.test.ts` holds each field against a real
 * `Config.load` under the same environment.
 */
import {homedir, tmpdir} from 'node:os'
import {join} from 'node:path'

/** The package facts the build writes into dist/command-index.json. */
export interface PackageFacts {
  bin: string
  dirname: string
  name: string
  version: string
}

/** The part of Config a command that does not list, load or help other commands uses. */
export interface LightConfig extends Pick<Config, 'bin' | 'configDir' | 'dirname' | 'name' | 'root' | 'userAgent' | 'version'> {
  runHook(): Promise<{failures: []; successes: []}>
  scopedEnvVar(key: string): string | undefined
  scopedEnvVarKey(key: string): string
  scopedEnvVarKeys(key: string): string[]
}

export function lightConfig(root: string, facts: PackageFacts, env: NodeJS.ProcessEnv = process.env): LightConfig {
  const windows = process.platform === 'win32'
  const scopedEnvVarKey = (key: string) => `${facts.bin.replaceAll('@', '').replaceAll(/[/-]/g, '_')}_${key}`.toUpperCase()
  const scopedEnvVar = (key: string) => env[scopedEnvVarKey(key)] || undefined
  const home = env.HOME || (windows && ((env.HOMEDRIVE && env.HOMEPATH && join(env.HOMEDRIVE, env.HOMEPATH)) || env.USERPROFILE)) || homedir() || tmpdir()
  const configBase = env.XDG_CONFIG_HOME || (windows && env.LOCALAPPDATA) || join(home, '.config')
  return {
    bin: facts.bin,
    configDir: scopedEnvVar('CONFIG_DIR') || join(configBase, facts.dirname),
    dirname: facts.dirname,
    name: facts.name,
    root,
    // opsctl declares no preparse, prerun or postrun hook: there is nothing to run.
    runHook: async () => ({failures: [], successes: []}),
    scopedEnvVar,
    scopedEnvVarKey,
    scopedEnvVarKeys: (key) => [scopedEnvVarKey(key)],
    userAgent: `${facts.name}/${facts.version} ${process.platform}-${process.arch} node-${process.version}`,
    version: facts.version,
  }
}
