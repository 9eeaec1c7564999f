/**
 * Health service state held by the sandbox, persisted by the core. Every table keyed by an id a
 * client can send (session cookie, user id) is a Map, so an id such as `__proto__` is just an
 * unknown id. Users keep a scrypt hash of their password (never the password). Each user's events are kept
 * sorted newest first (date, then id, descending) so a page is a binary search and a short scan.
 */
import type {Event, GroupConfig, PlanMedication} from '../../services/health/operations.js'

export interface PasswordHash {
  salt: string
  hash: string
}

export interface StoredUser {
  id: string
  email: string
  role: string
  givenName: string
  familyName: string
  birthDate?: string
  language: string
  timeZone: string
  disease?: string
  createdDate: string
  password: PasswordHash
  plan: {medications: PlanMedication[]}
  [extra: string]: unknown
}

export interface ActResult {
  date: string
  score: number
  kind: 'adult' | 'child'
}

export interface Session {
  userId: string
  /** sandbox clock, ms since the epoch */
  lastSeen: number
}

export interface HealthState {
  /** by the SHA-256 of the session id (the connect.sid cookie), see core/sessions.ts */
  sessions: Map<string, Session>
  users: Map<string, StoredUser>
  /** per user id, newest first */
  events: Map<string, Event[]>
  /** ACT results per user id, seeded through /__sandbox/health/act */
  act: Map<string, ActResult[]>
  /** group configs by id */
  groups: Map<string, GroupConfig>
}

/** The group every fresh sandbox has, so `groups config demo-clinic` works at once. */
export const DEMO_GROUP: GroupConfig = {
  id: '64b7f0c2a1d3e4f5a6b7c8d9',
  name: 'demo-clinic',
  displayName: 'Demo Respiratory Clinic',
  country: 'PH',
  language: 'en-PH',
  timeZone: 'Asia/Manila',
  medications: [
    {
      id: 'med-salbutamol',
      name: 'Salbutamol 100 mcg inhaler',
      shortName: 'Salbutamol',
      type: 'rescue',
      formFactor: 'mdi',
      diseases: ['asthma', 'copd'],
    },
    {
      id: 'med-fluticasone',
      name: 'Fluticasone 125 mcg inhaler',
      shortName: 'Fluticasone',
      type: 'controller',
      formFactor: 'mdi',
      diseases: ['asthma'],
    },
    {
      id: 'med-budesonide',
      name: 'Budesonide/formoterol 160/4.5 mcg',
      shortName: 'Budesonide',
      type: 'controller',
      formFactor: 'dpi',
      diseases: ['asthma', 'copd'],
    },
    {
      id: 'med-tiotropium',
      name: 'Tiotropium 2.5 mcg',
      shortName: 'Tiotropium',
      type: 'controller',
      formFactor: 'soft-mist',
      diseases: ['copd'],
    },
  ],
  actRequired: true,
  catRequired: false,
  supportEmail: 'support@demo-clinic.test',
  supportPhone: '+63 2 8000 0000',
}

export function emptyHealthState(): HealthState {
  return {
    sessions: new Map(),
    users: new Map(),
    events: new Map(),
    act: new Map(),
    groups: new Map([[DEMO_GROUP.id, structuredClone(DEMO_GROUP)]]),
  }
}
