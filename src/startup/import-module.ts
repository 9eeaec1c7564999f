/**
 * `import()` for the bundle. Node cannot run an `import()` in code that
 * src/startup/compile-cache.ts compiled from V8's cache (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING),
 * so scripts/bundle.mjs makes every dynamic import of dist/ call this module instead, which Node
 * compiles itself. What is imported here is an absolute URL (oclif's ESM plugins), a package
 * (`open`) or a Node module, so it resolves the same from here as from the caller.
 */
export async function importModule(specifier: string): Promise<unknown> {
  return import(specifier)
}
