/**
 * Help text within a width, broken only where a reader expects a break: between words, and
 * inside an option list (`a|b|c`) after a `|`. Only a run of characters with neither, wider than
 * the width, is cut where it must be. Each line keeps its own indentation on its continuation lines.
 */
import stringWidthOf from 'string-width'

/** Columns of `text`: printable ASCII is one column a character, as string-width counts it, without its cost. */
function stringWidth(text: string): number {
  return /^[\u0020-\u007E]*$/.test(text) ? text.length : stringWidthOf(text)
}

/** The pieces of `word` that may end a line: after each `|`. */
function pieces(word: string): string[] {
  return word.split(/(?<=\|)/)
}

function hardSplit(piece: string, width: number): string[] {
  const parts: string[] = []
  let rest = piece
  while (stringWidth(rest) > width) {
    parts.push(rest.slice(0, width))
    rest = rest.slice(width)
  }

  return [...parts, rest]
}

/** One line (no newline) as lines of at most `width` columns. */
function wrapLine(line: string, width: number): string[] {
  if (stringWidth(line) <= width) return [line]
  const indent = /^ */.exec(line)![0]
  const room = Math.max(10, width - indent.length)
  const out: string[] = []
  let current = ''
  const push = () => {
    if (current !== '') out.push(indent + current)
    current = ''
  }

  // Each word with the spaces before it, kept while on the same line (aligned columns stay aligned).
  for (const [, gap, word] of line.slice(indent.length).matchAll(/( *)(\S+)/g)) {
    const joined = current === '' ? word : `${current}${gap}${word}`
    if (stringWidth(joined) <= room) {
      current = joined
      continue
    }

    // The word goes to the next line, after a `|` when it has one, or cut only when one piece is too long.
    for (const [i, piece] of pieces(word).entries()) {
      const next = current === '' ? piece : i === 0 ? `${current}${gap}${piece}` : current + piece
      if (stringWidth(next) <= room) {
        current = next
        continue
      }

      push()
      const parts = hardSplit(piece, room)
      for (const part of parts.slice(0, -1)) out.push(indent + part)
      current = parts.at(-1)!
    }
  }

  push()
  return out
}

/**
 * `text` within `width`. `trim`: each line without its leading and trailing spaces first, as
 * oclif's own wrapping does (its callers indent the result); else each line keeps its indentation.
 */
export function wrapHelp(text: string, width: number, trim = false): string {
  return text
    .split('\n')
    .flatMap((line) => wrapLine(trim ? line.trim() : line, width))
    .join('\n')
}
