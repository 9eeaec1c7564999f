/**
 * The environment of a benchmark's child processes: this one's, less whatever would change what
 * is measured (OPSCTL_* settings, proxies, NODE_OPTIONS, NODE_EXTRA_CA_CERTS, which costs ~110 ms a
 * Node start here), as CI runs it (CI=true, NO_COLOR), plus `extra`.
 */
export function cleanEnv(extra = {}) {
  const env = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('OPSCTL_') || /^(https?_proxy|no_proxy|NODE_OPTIONS|NODE_EXTRA_CA_CERTS)$/i.test(k)) continue
    env[k] = v
  }

  return {...env, CI: 'true', NO_COLOR: '1', ...extra}
}
