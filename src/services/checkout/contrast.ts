/**
 * The hosted page draws its pay button in the customization's colour with white text: a colour
 * too light for white text (#ffff00 gives 1.07:1) makes the one button a buyer must read
 * unreadable. WCAG 2's contrast ratio, and AA's minimum for normal text.
 */
export const BUTTON_TEXT_COLOR = '#ffffff'
export const MIN_CONTRAST = 4.5

/** The contrast ratio of two `#rgb` or `#rrggbb` colours, from 1 (none) to 21 (black on white). */
export function contrastRatio(a: string, b: string): number {
  const [lighter, darker] = [luminance(a), luminance(b)].sort((x, y) => y - x)
  return (lighter + 0.05) / (darker + 0.05)
}

/** Why white button text on this colour is hard to read; undefined when it is not. */
export function buttonContrastProblem(color: string): string | undefined {
  const ratio = contrastRatio(color, BUTTON_TEXT_COLOR)
  if (ratio >= MIN_CONTRAST) return undefined
  return `white button text on ${color} has a contrast of ${ratio.toFixed(2)}:1, below the ${MIN_CONTRAST}:1 that text needs to be readable (WCAG AA); choose a darker colour`
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
