/**
 * The line `opsctl --version` prints, without loading oclif (bin/run.js takes this path when the
 * whole command line is `--version` or `-v`). It is oclif's `config.userAgent`, built the same way:
 * Linux under WSL is "wsl" (found by the same package oclif asks), ia32 is "x86".
 * test/process/cli.test.ts compares the two lines.
 */
import {arch, platform} from 'node:os'

/** Written in by the bundle (scripts/bundle.mjs); this module only runs from dist/. */
declare const OPSCTL_VERSION: string

export async function versionLine(): Promise<string> {
  // The same dynamic import as oclif's, so the bundle shares one chunk for it rather than splitting more.
  const {isWsl} = await import('wsl-utils')
  const os = isWsl ? 'wsl' : platform()
  const cpu = arch() === 'ia32' ? 'x86' : arch()
  return `opsctl/${OPSCTL_VERSION} ${os}-${cpu} node-${process.version}`
}
