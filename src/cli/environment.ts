/**
 * Every environment variable opsctl reads, in one table: `opsctl help environment` prints it, and
 * a test holds it equal to the variables the sources name.
 */
export interface EnvironmentVariable {
  name: string
  description: string
}

export const ENVIRONMENT: readonly EnvironmentVariable[] = [
  {name: 'OPSCTL_PROFILE', description: 'the profile to use when --profile is not given (an empty value counts as unset)'},
  {name: 'OPSCTL_CONFIG_DIR', description: 'the folder of profiles.json and audit.jsonl (default: the platform config folder)'},
  {name: 'OPSCTL_CACHE_DIR', description: 'the folder of the compile cache (default: the platform cache folder)'},
  {name: 'OPSCTL_HEALTH_URL', description: 'overrides the health base URL of the profile chosen without --profile'},
  {name: 'OPSCTL_HEALTH_SESSION', description: 'a health session (connect.sid) to use instead of the signed-in one of the profile chosen without --profile'},
  {name: 'OPSCTL_CHECKOUT_URL', description: 'overrides the checkout base URL of the profile chosen without --profile'},
  {name: 'OPSCTL_CHECKOUT_PUBLIC_KEY', description: 'overrides the checkout public key of the profile chosen without --profile'},
  {name: 'OPSCTL_CHECKOUT_SECRET_KEY', description: 'overrides the checkout secret key of the profile chosen without --profile'},
  {name: 'OPSCTL_TIMEOUT', description: 'seconds before a request is given up (--timeout)'},
  {name: 'OPSCTL_MAX_BODY', description: 'MiB of an answer read at most (--max-body, default 16)'},
  {name: 'OPSCTL_VERBOSE', description: 'print the redacted HTTP trace on stderr (--verbose)'},
  {name: 'OPSCTL_AUDIT_RUN', description: 'marks the audit lines of a run (smoke and scenario set it); checkout list leaves marked checkouts out unless --include-runs'},
  {name: 'OPSCTL_TRACE_PATIENT_DATA', description: '1 shows patient data in --verbose traces (masked by default)'},
  {name: 'OPSCTL_SANDBOX_PORT', description: 'the port of `sandbox start` (--port)'},
  {name: 'OPSCTL_SANDBOX_DATABASE', description: 'a PostgreSQL URL for `sandbox start --database` (its password is never printed)'},
  {name: 'OPSCTL_SANDBOX_TOKEN', description: "the sandbox's control token: `sandbox start --token`, and for sandbox commands run from another config folder or machine; sent only to the origin of OPSCTL_SANDBOX_URL, else of OPSCTL_HEALTH_URL, else http://127.0.0.1:4010"},
  {name: 'OPSCTL_SANDBOX_URL', description: 'the sandbox origin OPSCTL_SANDBOX_TOKEN is for, e.g. http://127.0.0.1:5010 (default: the origin of OPSCTL_HEALTH_URL, else http://127.0.0.1:4010)'},
  {name: 'HTTPS_PROXY', description: 'a proxy for https requests (HTTP_PROXY for http; lower case works too); never used for loopback'},
  {name: 'NO_PROXY', description: 'hosts that bypass the proxy'},
  {name: 'NODE_EXTRA_CA_CERTS', description: "a PEM file of extra certificate authorities, for a service behind a company's TLS proxy"},
  {name: 'NO_COLOR', description: 'no colour in any output (--no-color, accepted by every command, does the same)'},
  {name: 'CI', description: 'true: never prompt (a missing value is an error, a destructive command needs --yes)'},
  {name: 'NODE_DISABLE_COMPILE_CACHE', description: '1 turns the compile cache off'},
]

/** Which profile the OPSCTL_* overrides apply to, as `opsctl help environment` says it under the table. */
const OVERRIDES_RULE =
  'A flag given on the command line wins over its variable. The URL, session and key variables above override the profile chosen without naming one (OPSCTL_PROFILE, else the active profile); a profile named on the command line (--profile, -p, sandbox diff --against) is used as stored, its URLs and keys unchanged, whatever the environment holds.'

/** The table as `opsctl help environment` prints it, descriptions wrapped within `width` columns. */
export function environmentHelp(width = 80): string {
  const rows = definitionList(ENVIRONMENT.map((v) => [v.name, v.description]), width)
  return ['ENVIRONMENT VARIABLES', ...rows, '', ...wrap(OVERRIDES_RULE, width), ''].join('\n')
}

/** A help topic's table: each name, then its description wrapped within `width` columns beside it. */
export function definitionList(entries: readonly (readonly [string, string])[], width: number): string[] {
  const nameWidth = Math.max(...entries.map(([name]) => name.length))
  const indent = 2 + nameWidth + 2
  const room = Math.max(20, width - indent)
  return entries.flatMap(([name, description]) =>
    wrap(description, room).map((line, i) => (i === 0 ? `  ${name.padEnd(nameWidth)}  ${line}` : `${' '.repeat(indent)}${line}`)),
  )
}

/** Words into lines of at most `width` characters (a longer word stands alone). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else {
      line = line ? `${line} ${word}` : word
    }
  }

  return line ? [...lines, line] : lines
}
