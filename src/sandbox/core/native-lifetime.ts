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
 * Cost: `close` still frees a database's SQLite memory; what stays are the wrappers, about 4 KB
 * for a closed sandbox store (its database and its statements), and about 0.6 KB for each
 * `iterate` call (one per export). Measured on Node 20 and 24: tests that open thousands of stores
 * pay a few MB; a long-running sandbox, the iterator of each export.
 */
const kept = new Set<object>()

export function keepAlive<T extends object>(wrapper: T): T {
  kept.add(wrapper)
  return wrapper
}
