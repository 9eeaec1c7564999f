import type {Dispatcher} from 'undici'

/**
 * A handler written against undici's older callbacks (`onConnect`, `onHeaders`, `onData`,
 * `onComplete`, `onError`: what `dispatcher.request()` passes) seen through the newer ones the
 * carrier calls. undici's own dispatchers do the reverse (they speak the older callbacks); its
 * interceptors such as retry pass handlers of the newer kind.
 */
export function newStyleHandler(handler: Dispatcher.DispatchHandler): Dispatcher.DispatchHandler {
  if (handler.onRequestStart || handler.onResponseStart) return handler
  return {
    onRequestStart(controller, context) {
      ;(handler.onConnect as ((abort: (err?: Error) => void, context: unknown) => void) | undefined)?.(
        (reason) => controller.abort(reason ?? new Error('aborted')),
        context,
      )
    },
    onResponseStart(controller, statusCode, _headers, statusMessage) {
      const raw = (controller.rawHeaders ?? []) as Buffer[]
      const more = handler.onHeaders?.(statusCode, raw, () => controller.resume(), statusMessage ?? '')
      if (more === false) controller.pause()
    },
    onResponseData(controller, chunk) {
      if (handler.onData?.(chunk) === false) controller.pause()
    },
    onResponseEnd(controller) {
      handler.onComplete?.((controller.rawTrailers ?? []) as string[])
    },
    onResponseError(_controller, error) {
      handler.onError?.(error)
    },
  }
}
