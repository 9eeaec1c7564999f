/**
 * better-sqlite3 is the one native module opsctl may load (on a Node without node:sqlite:
 * sqlite-driver.ts), and only when a sandbox starts. Its binary
 * is built for one Node ABI by its install script: after switching Node (20 to 22 or 24), or after
 * an install that ran no install scripts (`--ignore-scripts`, npm's allow-scripts), it cannot load.
 * That is one line with the fix, exit 1, not a stack.
 */
import {ExitCode, OpsError} from '../../errors.js'

/** The binary is missing, or was built for another Node (its NODE_MODULE_VERSION differs). */
const BINDING_FAILURE = /NODE_MODULE_VERSION|Could not locate the bindings file|compiled against a different Node\.js version|invalid ELF header|wrong ELF class/

export class NativeModuleError extends OpsError {}

/** Runs `load` (which opens the first database), turning a binding failure into NativeModuleError. */
export function withNativeModule<T>(load: () => T): T {
  try {
    return load()
  } catch (error) {
    const {code, message} = error as NodeJS.ErrnoException
    if (code !== 'ERR_DLOPEN_FAILED' && !BINDING_FAILURE.test(message)) throw error
    throw new NativeModuleError(
      `The sandbox's SQLite module (better-sqlite3) ${problemOf(message)}; fix it with: ${rebuildCommand(message)}`,
      ExitCode.Unexpected,
    )
  }
}

function problemOf(message: string): string {
  const built = /NODE_MODULE_VERSION (\d+)/.exec(message)?.[1]
  if (built) return `was built for another Node.js (module version ${built}; Node ${process.version} needs ${process.versions.modules})`
  if (/Could not locate the bindings file/.test(message)) return `has no binary for Node ${process.version} (its install script did not run)`
  return `cannot be loaded by Node ${process.version} on ${process.platform}-${process.arch}`
}

/** `npm rebuild` in the folder whose node_modules holds better-sqlite3, as the loader's message names it. */
function rebuildCommand(message: string): string {
  const folder = /([^\s'"]+)[\\/]node_modules[\\/]better-sqlite3[\\/]/.exec(message)?.[1]
  return folder ? `npm rebuild better-sqlite3 --prefix ${folder}` : 'npm rebuild better-sqlite3'
}
