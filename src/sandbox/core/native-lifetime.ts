/**
 * Every better-sqlite3 object the sandbox creates (Database, Statement, StatementIterator) is kept
 * here for the life of the process, so it is never garbage collected.
 *
 * Why: better-sqlite3 12 builds them on the raw node::ObjectWrap. On Node 24 its destructor removes
 * an environment cleanup hook and aborts the process ("Assertion failed: (env) != nullptr",
 * nodejs/node#65446) when V8 collects the wrapper while no Node context is entered: a GC run from
 * an idle task, or during teardown. Nothing kept here is collected; at exit Node's cleanup hook
 * frees it. better-sqlite3 13 fixes this but needs Node >= 22; we support 20.18.
 *
 * What creates one: `new Database`, `prepare`, `pragma` (a new statement per call: use `exec` for
 * settings, a kept prepared statement for reads), `iterate`. `db.transaction()` prepares its
 * statements once per database and caches them on it, so a kept Database keeps them.
 *
 * Cost: a closed database stays as its small wrapper plus its statements' (their SQLite memory
 * is freed by `close`); an iterator, a few hundred bytes each time `iterate` is called.
 */
const kept = new Set<object>()

export function keepAlive<T extends object>(wrapper: T): T {
  kept.add(wrapper)
  return wrapper
}

export function isKeptAlive(wrapper: object): boolean {
  return kept.has(wrapper)
}
