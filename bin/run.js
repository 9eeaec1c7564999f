#!/usr/bin/env node
import module from 'node:module'

// Node 22+ caches compiled code between runs (a faster start); Node 20 has no such API.
module.enableCompileCache?.()

const {execute} = await import('@oclif/core')
await execute({dir: import.meta.url})
