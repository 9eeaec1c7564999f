/** Health service state held by the sandbox (extended by the health module). */
export interface HealthState {
  sessions: Record<string, {userId: string; lastSeen: number}>
  [key: string]: unknown
}

export function emptyHealthState(): HealthState {
  return {sessions: {}}
}
