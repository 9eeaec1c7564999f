/**
 * What Tab offers after the words typed so far: pure, over the commands of the manifest and a few
 * sources of local knowledge (profile names, checkout ids from the audit log). Nothing here sends
 * a request: Tab never waits on a network.
 */
import {isIdSafe} from '../../profiles/id-safe.js'
import {HELP_TOPICS} from '../help-topics.js'

export interface CompletableFlag {
  name: string
  char?: string
  type: 'boolean' | 'option'
  options?: readonly string[]
  multiple?: boolean
  hidden?: boolean
}

export interface CompletableCommand {
  id: string
  hidden?: boolean
  aliases?: readonly string[]
  flags: Record<string, CompletableFlag>
  args: Record<string, {name: string; options?: readonly string[]}>
}

/** Values known on this machine, read only when a word needs them. */
export interface LocalKnowledge {
  profiles(): Promise<string[]> | string[]
  checkoutIds(): Promise<string[]> | string[]
  /** the signed-in user's newest event ids this machine has listed */
  eventIds(): Promise<string[]> | string[]
  /** the sandbox tenants this machine's profiles point at */
  tenantIds?(): Promise<string[]> | string[]
}

/** Values by argument or flag name, where the manifest lists no options. */
const VALUES_BY_NAME: Record<string, (known: LocalKnowledge) => Promise<string[]> | string[]> = {
  checkoutId: (known) => known.checkoutIds(),
  eventId: (known) => known.eventIds(),
  profile: (known) => known.profiles(),
  tenantId: (known) => known.tenantIds?.() ?? [],
  userId: () => ['me'],
}

/** `words` are those after the program's name, the last being the one under the cursor ('' for a new word). */
export async function completions(commands: readonly CompletableCommand[], words: readonly string[], known: LocalKnowledge): Promise<string[]> {
  const current = words.at(-1) ?? ''
  const before = words.slice(0, -1)
  const visible = commands.filter((c) => !c.hidden)
  const {command, rest, topic} = findCommand(visible, before)
  if (!command) return current.startsWith('-') ? [] : nextWords(visible, topic, current)

  if (command.id === 'help' && !current.startsWith('-')) return helpSubjects(visible, rest, current)
  const flags = Object.values(command.flags).filter((f) => !f.hidden)
  const state = readWords(flags, rest)
  if (state.valueFor) return startingWith(await valuesOf(state.valueFor.name, state.valueFor.options, known), current)

  const assigned = /^--([^=]+)=(.*)$/.exec(current)
  if (assigned) {
    const flag = flags.find((f) => f.name === assigned[1] && f.type === 'option')
    if (!flag) return []
    return startingWith(await valuesOf(flag.name, flag.options, known), assigned[2]).map((v) => `--${flag.name}=${v}`)
  }

  if (current.startsWith('-') || state.positionals >= Object.keys(command.args).length) {
    if (state.afterDoubleDash) return []
    const offered = flags.filter((f) => f.multiple || !state.used.has(f.name)).map((f) => `--${f.name}`)
    return current.startsWith('-') ? startingWith(offered.sort(), current) : []
  }

  const arg = Object.values(command.args)[state.positionals]
  return startingWith(await valuesOf(arg.name, arg.options, known), current)
}

/** The command named by the leading words (topics first), and the words after it. */
function findCommand(commands: readonly CompletableCommand[], words: readonly string[]) {
  const ids = new Map<string, CompletableCommand>()
  for (const c of commands) for (const id of [c.id, ...(c.aliases ?? [])]) ids.set(id, c)
  const continues = (id: string) => [...ids.keys()].some((k) => k === id || k.startsWith(`${id}:`))
  const topic: string[] = []
  for (const [i, word] of words.entries()) {
    const id = [...topic, word].join(':')
    if (word.startsWith('-') || !continues(id)) break
    const next = words[i + 1]
    const command = ids.get(id)
    if (command && !(next !== undefined && continues(`${id}:${next}`))) return {command, rest: words.slice(i + 1), topic}
    topic.push(word)
  }

  return {command: undefined, rest: [], topic}
}

/** The next topic or command words under `topic`. */
function nextWords(commands: readonly CompletableCommand[], topic: readonly string[], current: string): string[] {
  const prefix = topic.length > 0 ? `${topic.join(':')}:` : ''
  const next = new Set<string>()
  for (const c of commands) {
    if (c.id.startsWith(prefix)) next.add(c.id.slice(prefix.length).split(':')[0])
  }

  return startingWith([...next].sort(), current)
}

/** After `help`: the topic and command words, as after `opsctl` itself, and at first the help topics (`environment`). */
function helpSubjects(commands: readonly CompletableCommand[], rest: readonly string[], current: string): string[] {
  const words = rest.filter((w) => !w.startsWith('-'))
  const {command, topic} = findCommand(commands, words)
  if (command || topic.length < words.length) return []
  const topics = words.length === 0 ? HELP_TOPICS.map((t) => t.name) : []
  return startingWith([...nextWords(commands, topic, current), ...topics].sort(), current)
}

interface WordState {
  positionals: number
  used: Set<string>
  /** the flag whose value the current word is */
  valueFor?: CompletableFlag
  afterDoubleDash: boolean
}

function readWords(flags: readonly CompletableFlag[], words: readonly string[]): WordState {
  const state: WordState = {afterDoubleDash: false, positionals: 0, used: new Set()}
  for (let i = 0; i < words.length; i++) {
    const word = words[i]
    if (state.afterDoubleDash || !word.startsWith('-') || word === '-') {
      state.positionals++
      continue
    }

    if (word === '--') {
      state.afterDoubleDash = true
      continue
    }

    const long = /^--([^=]+)(=.*)?$/.exec(word)
    const flag = long ? flags.find((f) => f.name === long[1]) : flags.find((f) => f.char === word.slice(1, 2))
    if (!flag) continue
    state.used.add(flag.name)
    const valueInline = long ? long[2] !== undefined : word.length > 2
    if (flag.type === 'option' && !valueInline) {
      if (i === words.length - 1) state.valueFor = flag
      i++
    }
  }

  return state
}

/** A value is offered only if it is id-safe, whatever its source: the shell inserts it into the command line as it is. */
async function valuesOf(name: string, options: readonly string[] | undefined, known: LocalKnowledge): Promise<string[]> {
  const values = options ? [...options] : ((await VALUES_BY_NAME[name]?.(known)) ?? [])
  return values.filter((v) => isIdSafe(v))
}

function startingWith(values: readonly string[], prefix: string): string[] {
  return [...new Set(values.filter((v) => v.startsWith(prefix)))]
}
