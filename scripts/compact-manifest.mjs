#!/usr/bin/env node
/**
 * Rewrites oclif.manifest.json without the indentation `oclif manifest` gives it: every command
 * line reads and parses this file (oclif finds the command in it), and at 2-space indentation half
 * of its 650 KB is whitespace. Compact, reading and parsing it costs about 3 ms less CPU per start.
 *
 * And `<%= config.bin %>` is rendered here, wherever the manifest holds it (the examples), as help would render it at every start
 * (oclif.bin of package.json, which has nothing for EJS to escape): help then shows the text as it
 * is, without compiling a template for it (scripts/bundle.mjs, DEPENDENCY_PATCHES).
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const file = join(root, 'oclif.manifest.json')
const {bin} = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).oclif
if (!/^[\w-]+$/.test(bin)) throw new Error(`oclif.bin ${bin} is not a plain word: render it with EJS`)
const text = JSON.stringify(JSON.parse(readFileSync(file, 'utf8'))).replaceAll('<%= config.bin %>', bin)
writeFileSync(file, text + '\n')
