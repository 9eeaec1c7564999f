#!/usr/bin/env node
// Development entry: oclif loads the TypeScript sources itself when tsx or ts-node is installed.
'use strict'
const {execute} = require('@oclif/core')

execute({development: true, dir: require('node:path').join(__dirname, '..')})
