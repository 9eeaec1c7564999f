#!/usr/bin/env node
// Development entry: oclif loads the TypeScript sources itself when tsx or ts-node is installed.
import {execute} from '@oclif/core'

await execute({development: true, dir: import.meta.url})
