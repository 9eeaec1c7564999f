#!/usr/bin/env node
/**
 * `npm run pack:tarball`: a standalone tarball for linux-x64 (opsctl with its own Node), built by
 * `oclif pack tarballs` and moved out of dist/ (which `npm pack` ships) to tmp/tarballs/, its path
 * printed last. The Node inside is the npm registry's
 * `node` package at the version package.json names (oclif.update.node.version), put where oclif
 * looks for a binary it downloaded before (tmp/cache/node-v<version>-linux-x64/node): so nothing is
 * downloaded from anywhere but the npm registry.
 */
import {execFileSync} from 'node:child_process'
import {copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync} from 'node:fs'
import {join} from 'node:path'

const root = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..')
const {oclif} = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const version = oclif.update.node.version
const nodePackage = join(root, 'tmp', 'node-from-npm')

execFileSync('npm', ['install', '--prefix', nodePackage, '--no-save', '--no-audit', '--no-fund', '--loglevel=error', `node@${version}`], {stdio: 'inherit'})
const cache = join(root, 'tmp', 'cache', `node-v${version}-linux-x64`)
mkdirSync(cache, {recursive: true})
copyFileSync(join(nodePackage, 'node_modules', 'node', 'bin', 'node'), join(cache, 'node'))

const env = {...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true'}
execFileSync(join(root, 'node_modules', '.bin', 'oclif'), ['pack', 'tarballs', '--targets', 'linux-x64', '--no-xz'], {cwd: root, env, stdio: 'inherit'})

const out = join(root, 'tmp', 'tarballs')
mkdirSync(out, {recursive: true})
for (const name of readdirSync(join(root, 'dist')).filter((n) => n.endsWith('-linux-x64.tar.gz'))) {
  renameSync(join(root, 'dist', name), join(out, name))
  console.log(join(out, name))
}
