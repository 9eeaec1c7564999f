#!/usr/bin/env node
/**
 * Writes dist/command-index.json from oclif.manifest.json: each command id and its file, the
 * aliases, the commands that take arguments, and the package facts oclif's Config would read from package.json. bin/run.js starts a
 * command from it without loading oclif's Config (src/startup/direct-start.ts).
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8'))
const pjson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))

const commands = {}
const aliases = []
const takesArgs = []
for (const [id, command] of Object.entries(manifest.commands)) {
  if (!Array.isArray(command.relativePath)) throw new Error(`oclif.manifest.json: ${id} has no relativePath`)
  commands[id] = command.relativePath.join('/')
  aliases.push(...(command.aliases ?? []), ...(command.hiddenAliases ?? []))
  if (command.strict === false || Object.keys(command.args ?? {}).length > 0) takesArgs.push(id)
}

const index = {aliases, bin: pjson.oclif.bin, commands, dirname: pjson.oclif.dirname, name: pjson.name, takesArgs, version: pjson.version}
writeFileSync(join(ROOT, 'dist', 'command-index.json'), JSON.stringify(index) + '\n')
