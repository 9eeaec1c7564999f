/**
 * The services registered with the shared code, as the CLI registers them when a command starts
 * (src/cli/base-command.ts imports src/services/registry.ts): tests that make clients directly
 * reach the services the same way.
 */
import '../src/services/registry.js'
