/**
 * A zod schema built the first time something reads it, not when its module loads. A service's
 * table holds dozens of schemas and building them all costs a command some 15 ms of CPU at start
 * (zod 4 sets up every schema object as it is made), though one command uses one or two of them.
 *
 * The sources never call this: the services' tables are plain zod, and the build wraps each of
 * their schemas in it (scripts/lazy-schemas.mjs, the one loader; docs/startup.md).
 *
 * The value stands in for the schema everywhere a schema is read: a property, a method (bound to
 * the real schema), `in`, `instanceof` (zod's own checks read `_zod`) and its prototype. It has no
 * own keys to list: nothing reads a schema that way.
 */
export function lazySchema<T extends object>(build: () => T): T {
  let built: T | undefined
  const real = (): T => (built ??= build())
  return new Proxy({} as T, {
    get: (_target, key) => Reflect.get(real(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
    has: (_target, key) => Reflect.has(real(), key),
    set: (_target, key, value) => Reflect.set(real(), key, value),
  })
}
