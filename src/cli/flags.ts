/**
 * The global flags, in groups, so that a command offers only what it honours:
 * - localFlags: --profile and the output contract, for commands that print data and send nothing;
 * - sendFlags: + --dry-run, --verbose and --timeout, for commands that send requests;
 * - changeFlags: + --yes, for a command that exists to call a destructive row (its `static changes`).
 * A command that prints no data and sends nothing (sandbox start) takes none of them.
 */
import * as Flags from '@oclif/core/flags'

import {FORMATS} from './output.js'

const GLOBAL = 'GLOBAL'

/**
 * The most items one listing document holds (`--limit`): it is kept whole until it is printed, so a
 * larger (or overflowing) number is refused while argv is read; `--all` streams any number.
 */
export const MAX_LIMIT = 10_000

export const profileFlag = {
  profile: Flags.string({
    char: 'p',
    description: 'profile to use (default: the active one); an empty OPSCTL_PROFILE counts as unset, an empty --profile is an error',
    env: 'OPSCTL_PROFILE',
    helpGroup: GLOBAL,
  }),
}

/** oclif adds --json itself ("Format output as json."); this one, of the same name, replaces it. */
export const jsonFlag = {
  json: Flags.boolean({description: "print the command's one JSON document (the same as -o json)", helpGroup: GLOBAL}),
}

export const outputFlags = {
  ...jsonFlag,
  output: Flags.option({
    char: 'o',
    description: 'output format: table (tab-separated when piped), json (the same document as --json), ndjson (one element of its list per line) or csv',
    helpGroup: GLOBAL,
    options: FORMATS,
  })(),
  columns: Flags.string({
    delimiter: ',',
    description: 'columns for table/csv output, as dot paths (repeatable or comma separated); an unknown name is an error that lists the known ones',
    helpGroup: GLOBAL,
    multiple: true,
    multipleNonGreedy: true,
  }),
  query: Flags.string({
    description: 'JMESPath expression applied to the JSON document before it is printed in any format',
    helpGroup: GLOBAL,
    helpValue: '<JMESPath>',
    async parse(input) {
      const {checkQuery} = await import('./output/query.js')
      return checkQuery(input)
    },
  }),
  truncate: Flags.boolean({
    allowNo: true,
    description: 'shorten table cells to fit the terminal (--no-truncate: show every character)',
    helpGroup: GLOBAL,
  }),
  utc: Flags.boolean({description: 'show times in UTC rather than the zone of the user or service', helpGroup: GLOBAL}),
  headers: Flags.boolean({
    allowNo: true,
    description: 'the header row of tables, TSV and CSV (--no-headers: only the rows, for scripts)',
    helpGroup: GLOBAL,
  }),
}

export const requestFlags = {
  verbose: Flags.boolean({description: 'print a redacted HTTP trace on stderr', env: 'OPSCTL_VERBOSE', helpGroup: GLOBAL}),
  'dry-run': Flags.boolean({description: 'print the request as a curl command and send nothing', helpGroup: GLOBAL}),
  timeout: Flags.integer({
    default: 30,
    description: 'seconds to wait for the service, retries included',
    env: 'OPSCTL_TIMEOUT',
    helpGroup: GLOBAL,
    min: 1,
  }),
  'max-body': Flags.integer({
    // DEFAULT_MAX_BODY_MIB of src/http/answer-limit.ts (not imported: every command loads this file; a test holds them equal)
    default: 16,
    description: 'the most MiB of an answer to read (more: exit 6)',
    env: 'OPSCTL_MAX_BODY',
    helpGroup: GLOBAL,
    helpValue: '<MiB>',
    min: 1,
  }),
}

export const yesFlag = {
  yes: Flags.boolean({char: 'y', description: 'skip confirmation of destructive changes', helpGroup: GLOBAL}),
}

export const localFlags = {...profileFlag, ...outputFlags}
export const sendFlags = {...localFlags, ...requestFlags}
export const changeFlags = {...sendFlags, ...yesFlag}

/** Every global flag's value, as the base command reads them: a command may not offer all of them. */
export type GlobalFlagValues = Partial<{
  profile: string
  output: (typeof FORMATS)[number]
  columns: string[]
  query: string
  truncate: boolean
  headers: boolean
  utc: boolean
  verbose: boolean
  'dry-run': boolean
  timeout: number
  'max-body': number
  yes: boolean
}>
