/**
 * Query strings arrive as text: these read a query value in the type its schema means, whether the
 * client validates it before sending (a flag's boolean, number or list) or a server reads it from
 * the URL (`true`, `50`, a key given once or repeated). A new query parameter takes one of these.
 */
import * as z from 'zod'

/** `true`/`false`, as a boolean or as text. */
export const QueryBool = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')])

/** A key given once or repeated, always as a list. */
export const QueryList = z.union([z.string(), z.array(z.string())]).transform((v) => (Array.isArray(v) ? v : [v]))

/**
 * A number, or its decimal text (`50`, `-2`, `2.5`); anything else (``, `1e3`, `0x10`, `50abc`) is
 * refused rather than read as 0 or NaN. Bounds by piping: `QueryNumber.pipe(z.number().int().min(1))`.
 */
export const QueryNumber = z.union([z.number(), z.string().regex(/^-?\d+(?:\.\d+)?$/).transform(Number)])
