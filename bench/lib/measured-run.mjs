/**
 * The CLI in a child that writes its own peak RSS (process.resourceUsage().maxRSS) to stderr as it
 * exits: its exit code, wall time, peak memory and output.
 */
import {spawn} from 'node:child_process'

export function measuredRun({bin, cwd}, argv, env, nodeFlags = []) {
  const wrapper = `
    process.argv = [process.argv[0], ${JSON.stringify(bin)}, ...${JSON.stringify(argv)}];
    process.on('exit', () => process.stderr.write('\\n@@maxrss ' + process.resourceUsage().maxRSS + '\\n'));
    await import(${JSON.stringify(bin)});
  `
  return new Promise((ok, fail) => {
    const started = performance.now()
    const child = spawn(process.execPath, [...nodeFlags, '--input-type=module', '-e', wrapper], {cwd, env, stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.once('error', fail)
    child.once('close', (code) => {
      const rss = Number(/@@maxrss (\d+)/.exec(stderr)?.[1] ?? 0)
      ok({code, ms: performance.now() - started, maxRssMb: Math.round(rss / 1024), stdout, stderr: stderr.replace(/\n@@maxrss \d+\n?/, '')})
    })
  })
}
