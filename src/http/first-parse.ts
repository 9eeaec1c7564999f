/**
 * zod compiles an object schema's parser (`new Function`) at its first parse: worth it for a
 * schema that parses many values (the pages of `events list --all`), wasted on the one or two
 * values a command parses with most of its schemas (about 5 ms of CPU for `events add`: its body,
 * the plan, the event). So a schema's first parse in a process runs without it, and only a schema
 * parsed again may be compiled.
 */
const parsedBefore = new WeakSet<object>()

/** The parse options for this parse of `schema`. */
export function parseOptions(schema: object): {jitless: boolean} {
  const first = !parsedBefore.has(schema)
  parsedBefore.add(schema)
  return {jitless: first}
}
