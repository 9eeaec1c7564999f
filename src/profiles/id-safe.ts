/**
 * The words Tab may offer and the ids this machine stores for it: letters, digits and `_ - . : @ +`
 * only. An id is a service's text; a shell inserts a completion into the command line as it is, so
 * `evt_$(touch x)`, a backtick, a newline, a glob or an escape sequence must never be offered.
 */
const ID_SAFE = /^[\w.:@+-]+$/

export function isIdSafe(word: string): boolean {
  return ID_SAFE.test(word)
}
