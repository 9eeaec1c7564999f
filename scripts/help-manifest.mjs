#!/usr/bin/env node
/**
 * Writes dist/help/: what oclif's help reads of its Config, taken from a real `Config.load` of the
 * package at build. dist/help/index.json holds every command entry as Config holds them (aliases
 * as entries of their own, in Config's order) with what a list of commands shows, the topics as
 * Config makes them (package.json's and one for every command's leading words), and the part of
 * package.json help reads; dist/help/commands/<id>.json each entry whole (its flags, arguments,
 * examples), for the command whose help is shown. bin/run.js shows help from them with oclif's own Help and no
 * Config (src/startup/help-start.ts): a command's help reads its own flags, not every command's.
 *
 * The help start takes what it does not read from here as fixed: the build fails when package.json
 * gives oclif a theme, plugins, a hook other than command_not_found, a single-command CLI, flexible
 * taxonomy or another topic separator, or a command's help loads its class (dynamic help).
 */
import {Config} from '@oclif/core'
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const pjson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))


/** What help reads of an entry in a list (the root's, a topic's, help's did-you-mean): the summary, else the description's first line. */
const LIST_FIELDS = ['id', 'summary', 'description', 'hidden', 'aliases', 'strict', 'args', 'pluginName']

/** An entry whose description a list shows the first line of: that line. Help renders each text as a template, so one with a tag is kept whole. */
function firstLine(entry) {
  const {description} = entry
  if (description && !description.includes('<%') && !description.includes('%>')) entry.description = description.split('\n')[0]
  return entry
}

const pick = (object, fields) => Object.fromEntries(fields.filter((f) => object[f] !== undefined).map((f) => [f, object[f]]))

const {oclif} = pjson
const fixed = {
  'a single-command CLI': oclif.commands?.strategy === 'single' || oclif.default !== undefined,
  'a theme': oclif.theme !== undefined,
  'flexible taxonomy': Boolean(oclif.flexibleTaxonomy),
  'hooks other than command_not_found': Object.keys(oclif.hooks ?? {}).some((h) => h !== 'command_not_found'),
  'plugins': (oclif.plugins ?? []).length > 0 || oclif.jitPlugins !== undefined,
  'a topic separator other than a space': oclif.topicSeparator !== ' ',
}
for (const [what, is] of Object.entries(fixed)) if (is) throw new Error(`package.json's oclif has ${what}: src/startup/help-start.ts assumes not`)

const config = await Config.load({root: ROOT})
const dir = join(ROOT, 'dist', 'help')
const list = config.commands.map((command) => {
  if (command.hasDynamicHelp) throw new Error(`${command.id} has dynamic help: src/startup/help-start.ts shows help without loading a command`)
  const file = join(dir, 'commands', `${command.id.replaceAll(':', '/')}.json`)
  mkdirSync(dirname(file), {recursive: true})
  // whole, as Config holds it: a command's help reads most of it (its flags through oclif's DocOpts too)
  writeFileSync(file, JSON.stringify(command) + '\n')
  const entry = pick(command, LIST_FIELDS)
  return firstLine(entry)
})
// a topic that is also a command is shown as the command: a list shows its first line
const ids = new Set(list.map((c) => c.id))
const topics = config.topics.map((topic) => (ids.has(topic.name) ? firstLine({...topic}) : topic))

const index = {
  bin: oclif.bin,
  commands: list,
  dirname: oclif.dirname,
  name: pjson.name,
  // what help reads of package.json: the root's description, help flags, options and class, a state
  pjson: {description: pjson.description, name: pjson.name, oclif: {...oclif, topics: undefined}, version: pjson.version},
  topics,
  version: pjson.version,
}
writeFileSync(join(dir, 'index.json'), JSON.stringify(index) + '\n')
