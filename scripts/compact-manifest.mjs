#!/usr/bin/env node
/**
 * Rewrites oclif.manifest.json without the indentation `oclif manifest` gives it: every command
 * line reads and parses this file (oclif finds the command in it), and at 2-space indentation half
 * of its 650 KB is whitespace. Compact, reading and parsing it costs about 3 ms less CPU per start.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'oclif.manifest.json')
writeFileSync(file, JSON.stringify(JSON.parse(readFileSync(file, 'utf8'))) + '\n')
