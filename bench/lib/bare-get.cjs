// The floor of any Node CLI for one API call: a bare node:http GET of the resource, its body printed.
// argv: URL, then an optional authorization header value.
'use strict'
const http = require('node:http')

const [url, authorization] = process.argv.slice(2)
http
  .get(url, {headers: authorization ? {authorization} : {}}, (res) => {
    const chunks = []
    res.on('data', (c) => chunks.push(c))
    res.on('end', () => {
      process.stdout.write(Buffer.concat(chunks))
      if (res.statusCode !== 200) process.exitCode = 1
    })
  })
  .on('error', (error) => {
    process.stderr.write(`${error.message}\n`)
    process.exitCode = 1
  })
