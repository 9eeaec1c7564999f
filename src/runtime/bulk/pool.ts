/**
 * Runs `work` on the items of an async iterable, at most `limit` at a time, pulling items only as
 * workers free up (the input is never read ahead). The first failure stops new work; the items
 * already started finish, then it is thrown.
 */
export async function eachLimited<T>(items: AsyncIterable<T>, limit: number, work: (item: T) => Promise<void>): Promise<void> {
  const iterator = items[Symbol.asyncIterator]()
  let failure: {error: unknown} | undefined
  let pulling: Promise<unknown> = Promise.resolve()
  const pull = (): Promise<IteratorResult<T>> => {
    const next = pulling.then(() => iterator.next())
    pulling = next.catch(() => {})
    return next
  }

  const worker = async (): Promise<void> => {
    while (!failure) {
      try {
        const next = await pull()
        if (next.done || failure) return
        await work(next.value)
      } catch (error) {
        failure ??= {error}
      }
    }
  }

  await Promise.all(Array.from({length: Math.max(1, limit)}, () => worker()))
  if (failure) {
    await iterator.return?.(undefined)?.catch(() => {})
    throw failure.error
  }
}
