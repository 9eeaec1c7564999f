/**
 * The stored text of documents recently read or written, by collection and key, so that a read
 * (a session lookup, the signed-in user) does not go to SQLite each time. It holds what the
 * database holds within the current transaction: the store empties it whenever a transaction is
 * rolled back, and a collection's part when the collection is cleared. Bounded: past `limit`
 * documents in a collection, the oldest remembered is forgotten.
 */
export class DocumentCache {
  private readonly collections = new Map<string, Map<string, string>>()
  /** whole collections as read (a prefetch), in their order; forgotten at the collection's first change */
  private readonly lists = new Map<string, [string, string][]>()

  constructor(private readonly limit = 10_000) {}

  /** Forgets everything (a rollback: what was written may not be in the database any more). */
  clear(): void {
    this.collections.clear()
    this.lists.clear()
  }

  /** A document is about to change (or to be read again): the collection's listing goes too. */
  forget(collection: string, key: string): void {
    this.collections.get(collection)?.delete(key)
    this.lists.delete(collection)
  }

  forgetCollection(collection: string): void {
    this.collections.delete(collection)
    this.lists.delete(collection)
  }

  /** Every document of the collection, in order, as read since its last change; undefined when not read whole. */
  listed(collection: string): undefined | [string, string][] {
    return this.lists.get(collection)
  }

  rememberList(collection: string, documents: [string, string][]): void {
    this.lists.set(collection, documents)
    for (const [key, text] of documents) this.remember(collection, key, text)
  }

  get(collection: string, key: string): string | undefined {
    return this.collections.get(collection)?.get(key)
  }

  remember(collection: string, key: string, text: string): void {
    let documents = this.collections.get(collection)
    if (!documents) this.collections.set(collection, (documents = new Map()))
    documents.delete(key)
    documents.set(key, text)
    if (documents.size > this.limit) documents.delete(documents.keys().next().value as string)
  }
}
