/**
 * Health service state held by the sandbox, in its database (core/store.ts): every table is keyed
 * by SQL, so an id such as `__proto__` is just an unknown id. Users keep a scrypt hash of their
 * password (never the password), and are stored whole: fields this code does not name survive.
 */
import type {Event, GroupConfig, PlanMedication} from '../../services/health/operations.js'
import type {ModuleState} from '../types.js'

import {StateDocumentError, tableOf} from '../core/state-document.js'
import {DocTable, type SandboxStore} from '../core/store.js'
import {EventStore} from './event-store.js'

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

/** The health module's state in the sandbox database: one repository per table. */
export class HealthStore implements ModuleState {
  /** by the SHA-256 of the session id (the connect.sid cookie), see core/sessions.ts */
  readonly sessions: DocTable<Session>
  readonly users: DocTable<StoredUser>
  /** every user's events, indexed for the filters and paging of getEvents */
  readonly events: EventStore
  /** ACT results per user id, seeded through /__sandbox/health/act */
  readonly act: DocTable<ActResult[]>
  /** group configs by id */
  readonly groups: DocTable<GroupConfig>

  constructor(store: SandboxStore) {
    this.sessions = new DocTable(store, 'health.sessions')
    this.users = new DocTable(store, 'health.users')
    this.events = new EventStore(store)
    this.act = new DocTable(store, 'health.act')
    this.groups = new DocTable(store, 'health.groups')
  }

  dump(): Record<string, unknown> {
    return {
      sessions: this.sessions.entries(),
      users: this.users.entries(),
      events: [...this.events.byUser()],
      act: this.act.entries(),
      groups: this.groups.entries(),
    }
  }

  load(section: Record<string, unknown>, version: number): void {
    this.reset()
    const tables = {sessions: this.sessions, users: this.users, act: this.act, groups: this.groups}
    for (const [name, table] of Object.entries(tables) as [string, DocTable<unknown>][]) {
      if (section[name] === undefined) continue
      if (name === 'groups') table.clear()
      for (const [key, value] of tableOf(section[name], version, `health.${name}`)) table.set(key, recordOf(value, `health.${name}.${key}`))
    }

    if (section.events === undefined) return
    for (const [userId, list] of tableOf(section.events, version, 'health.events')) {
      if (!Array.isArray(list)) throw new StateDocumentError(`its health.events of ${userId} is not a list`)
      for (const event of list as Event[]) {
        if (typeof event?.id !== 'string' || typeof event.date !== 'string') {
          throw new StateDocumentError(`an event of ${userId} in its health.events has no id or date`)
        }

        this.events.put(userId, event)
      }
    }
  }

  /** A fresh sandbox's state: nothing but the demo group. */
  reset(): void {
    for (const table of [this.sessions, this.users, this.act, this.groups]) table.clear()
    this.events.clear()
    this.groups.set(DEMO_GROUP.id, structuredClone(DEMO_GROUP))
  }
}

function recordOf(value: unknown, where: string): unknown {
  if (typeof value !== 'object' || value === null) throw new StateDocumentError(`its ${where} is not a record`)
  return value
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
