/**
 * The hosted page draws its pay button in the merchant's colour. Any hex colour is accepted, as
 * the spec and the real service accept it; the page writes the button's text in black or white,
 * whichever reads better on that colour (one of the two always reaches 4.5:1, WCAG AA's minimum
 * for normal text). `customize set` warns when white text, the usual choice, would read poorly.
 */
export const MIN_CONTRAST = 4.5
const WHITE = '#ffffff'
const BLACK = '#000000'

/** The contrast ratio of two `#rgb` or `#rrggbb` colours, from 1 (none) to 21 (black on white). */
export function contrastRatio(a: string, b: string): number {
  const [lighter, darker] = [luminance(a), luminance(b)].sort((x, y) => y - x)
  return (lighter + 0.05) / (darker + 0.05)
}

/** Black or white: the text colour that reads better on a button of this colour. */
export function buttonTextColor(color: string): string {
  return contrastRatio(color, WHITE) >= contrastRatio(color, BLACK) ? WHITE : BLACK
}

/** A warning when white text on this colour is hard to read (the page then uses black); undefined when it reads well. */
export function whiteTextWarning(color: string): string | undefined {
  const ratio = contrastRatio(color, WHITE)
  if (ratio >= MIN_CONTRAST) return undefined
  return `white text on ${color} has a contrast of ${ratio.toFixed(2)}:1, below ${MIN_CONTRAST}:1 (WCAG AA); the sandbox's page writes the button's text in black instead, another page may not`
}

function luminance(hex: string): number {
  const digits = hex.replace('#', '')
  const full = digits.length === 3 ? [...digits].map((d) => d + d).join('') : digits
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = Number.parseInt(full.slice(i, i + 2), 16) / 255
    return c <= 0.039_28 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  })
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}
