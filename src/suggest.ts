/**
 * "Did you mean" for mistyped commands, topics and flags. A suggestion is only ever printed: the
 * CLI never runs a guess (a mistyped destructive command must change nothing).
 */
import levenshtein from 'fast-levenshtein'

/** A name the user may have meant, in words ("customize remove"), and whether words may follow it. */
export interface Candidate {
  name: string
  /** A command that takes positional arguments: words typed after its name are its arguments. */
  takesArgs: boolean
}

/**
 * Verbs other tools use for what a command here does: `webhook create` means `webhook register`,
 * not the `webhook update` a spelling distance would pick.
 */
const SYNONYMS: Record<string, readonly string[]> = {
  add: ['create', 'register'],
  create: ['register', 'add'],
  del: ['delete', 'remove'],
  delete: ['remove'],
  describe: ['get', 'show'],
  get: ['show'],
  ls: ['list'],
  new: ['create', 'register', 'add'],
  register: ['create', 'add'],
  remove: ['delete'],
  rm: ['delete', 'remove'],
  show: ['get'],
}

/** The candidate whose words are what was typed, a verb taken for its synonym (`webhook create`: `webhook register`). */
function synonymOf(typedWords: string[], candidates: Candidate[]): string | undefined {
  let best: {name: string; rank: number; words: number} | undefined
  for (const candidate of candidates) {
    const words = candidate.name.split(' ')
    if (typedWords.length < words.length || (!candidate.takesArgs && typedWords.length > words.length)) continue
    if (!words.every((w, i) => typedWords[i] === w || SYNONYMS[typedWords[i]]?.includes(w))) continue
    // the first synonym listed is the likelier one
    const rank = words.reduce((sum, w, i) => sum + Math.max(0, SYNONYMS[typedWords[i]]?.indexOf(w) ?? 0), 0)
    if (!best || words.length > best.words || (words.length === best.words && rank < best.rank)) best = {name: candidate.name, rank, words: words.length}
  }

  return best?.name
}

/** The closest candidate to what was typed, when it is close enough to be a plausible typo. */
export function nearestName(typedWords: string[], candidates: Candidate[]): string | undefined {
  const synonym = synonymOf(typedWords, candidates)
  if (synonym !== undefined) return synonym
  let best: {distance: number; name: string; words: number} | undefined
  for (const candidate of candidates) {
    const words = candidate.name.split(' ')
    // Words beyond the candidate's own are its arguments only if it takes some; else they count as typos.
    const compared = (candidate.takesArgs ? typedWords.slice(0, words.length) : typedWords).join(' ')
    const distance = levenshtein.get(compared, candidate.name)
    if (distance > closeEnough(candidate.name)) continue
    const better = !best || distance < best.distance || (distance === best.distance && words.length > best.words)
    if (better) best = {distance, name: candidate.name, words: words.length}
  }

  return best?.name
}

/** The closest flag name (`--limit`) to a mistyped one (`--limt` or `--limt=3`). */
export function nearestFlag(typed: string, flagNames: string[]): string | undefined {
  const name = typed.replace(/^-+/, '').split('=')[0]
  const found = nearestName([name], flagNames.map((f) => ({name: f, takesArgs: false})))
  return found === undefined ? undefined : `--${found}`
}

function closeEnough(name: string): number {
  return Math.max(2, Math.ceil(name.length * 0.4))
}
