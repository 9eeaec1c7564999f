/**
 * CPU seconds (user + system) used so far by this process, by `pids` and by a PostgreSQL cluster
 * (its postmaster and the postmaster's children: the backends, which live as long as a client pool
 * keeps its connections), read from /proc (Linux; NaN elsewhere) at 100 ticks a second. A process
 * that exits between two readings takes its share with it.
 */
import {readdirSync, readFileSync} from 'node:fs'

export function cpuSeconds(pids, postmaster) {
  const stat = (pid) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  const ticks = (pid) => {
    try {
      const f = stat(pid)
      return (Number(f[11]) + Number(f[12])) / 100
    } catch {
      return 0 // gone since it was listed
    }
  }

  const parent = (pid) => {
    try {
      return stat(pid)[1]
    } catch {
      return undefined
    }
  }

  try {
    const backends = readdirSync('/proc').filter((d) => /^\d+$/.test(d) && parent(d) === String(postmaster))
    const {system, user} = process.cpuUsage()
    return {gen: (system + user) / 1e6, pg: [postmaster, ...backends].reduce((sum, pid) => sum + ticks(pid), 0), other: pids.reduce((sum, pid) => sum + ticks(pid), 0)}
  } catch {
    return {gen: Number.NaN, other: Number.NaN, pg: Number.NaN}
  }
}
