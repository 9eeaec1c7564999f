/**
 * Published facts of the embedded sandbox, shared by the built-in `sandbox` profile and the
 * emulator itself. The keys are test keys: they open nothing but a local sandbox.
 */
export const SANDBOX_PORT = 4010
export const SANDBOX_ORIGIN = `http://127.0.0.1:${SANDBOX_PORT}`
export const SANDBOX_KEYS = {
  publicKey: 'pk-sandbox-Zq3Xb8Lm2Nc7Vt4Rw9Yh1Ks6',
  secretKey: 'sk-sandbox-Hd5Fg2Jk8Lp3Qw7Er1Ty6Ui4',
} as const

/** Health paths live at the origin (`/api/...`); checkout under `/checkout` (`/checkout/v1/...`). */
export function sandboxBaseUrls(origin: string): {health: string; checkout: string} {
  const o = origin.replace(/\/+$/, '')
  return {health: o, checkout: `${o}/checkout`}
}
