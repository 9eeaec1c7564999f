/**
 * `--no-color` on any command (and before one): what NO_COLOR=1 means, and no command needs to
 * declare it. Taken out of the arguments oclif parses, before a `--` only (after one, every word
 * is an argument). oclif's colours (help headings) read NO_COLOR from the environment.
 */
export function takeNoColor(argv: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const end = argv.includes('--') ? argv.indexOf('--') : argv.length
  const before = argv.slice(0, end)
  if (!before.includes('--no-color')) return [...argv]
  env.NO_COLOR = '1'
  return [...before.filter((word) => word !== '--no-color'), ...argv.slice(end)]
}
