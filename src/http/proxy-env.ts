/** Whether the environment names a proxy (HTTP(S)_PROXY; NO_PROXY alone does not). */
export function proxyConfigured(): boolean {
  return ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].some((k) => process.env[k])
}
