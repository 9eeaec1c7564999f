/**
 * The parts of undici the transport loads lazily. Imported here statically and re-exported: in the
 * bundle (scripts/bundle.mjs) a dynamic `import('undici')` of the CommonJS package would give its
 * default export only, so every lazy `import()` names this module instead.
 */
export {Agent, interceptors} from 'undici'
