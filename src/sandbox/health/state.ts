/**
 * Health service state held by the sandbox, in its database (core/store.ts): every table is keyed
 * by SQL, so an id such as `__proto__` is just an unknown id. Users keep a scrypt hash of their
 * password (never the password), and are stored whole: fields this code does not name survive.
 */
import type {Event, GroupConfig, PlanMedication} from '../../services/health/operations.js'
import type {ModuleState} from '../core/module-state.js'

import {checkKeyIsId, checkRecord, StateDocumentError, tableOf} from '../core/state-document.js'
import {DocTable, type TenantStore} from '../core/store.js'
import {EventStore} from './event-store.js'
import {StoredActResultsSchema, StoredEventSchema, StoredGroupSchema, StoredSessionSchema, StoredUserSchema} from './stored-schemas.js'

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

declare module '../types.js' {
  /** `ctx.state.health`: the health module's repositories. */
  interface SandboxState {
    health: HealthStore
  }
}

/** The collections of the documents every signed-in request reads: its session and its user. */
export const HEALTH_DOCS = {
  sessions: 'health.sessions',
  users: 'health.users',
} as const

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

  constructor(store: TenantStore) {
    this.sessions = new DocTable(store, HEALTH_DOCS.sessions)
    this.users = new DocTable(store, HEALTH_DOCS.users)
    this.events = new EventStore(store)
    this.act = new DocTable(store, 'health.act')
    this.groups = new DocTable(store, 'health.groups')
  }

  async dump(): Promise<Record<string, unknown>> {
    return {
      sessions: await this.sessions.entries(),
      users: await this.users.entries(),
      events: [...(await this.events.byUser())],
      act: await this.act.entries(),
      groups: await this.groups.entries(),
    }
  }

  async load(section: Record<string, unknown>, version: number): Promise<void> {
    await this.reset()
    const tables = [
      {name: 'sessions', table: this.sessions, schema: StoredSessionSchema, byId: false},
      {name: 'users', table: this.users, schema: StoredUserSchema, byId: true},
      {name: 'act', table: this.act, schema: StoredActResultsSchema, byId: false},
      {name: 'groups', table: this.groups, schema: StoredGroupSchema, byId: false},
    ] as const
    for (const {byId, name, schema, table} of tables) {
      if (section[name] === undefined) continue
      if (name === 'groups') await table.clear()
      for (const entry of tableOf(section[name], version, `health.${name}`)) {
        const record = checkRecord(schema, entry.value, entry.where)
        if (byId) checkKeyIsId(entry)
        await (table as DocTable<unknown>).set(entry.key, record)
      }
    }

    if (section.events === undefined) return
    for (const {key: userId, value: list, where} of tableOf(section.events, version, 'health.events')) {
      if (!Array.isArray(list)) throw new StateDocumentError(`${where}: expected a list of events`)
      for (const [i, event] of (list as unknown[]).entries()) {
        await this.events.put(userId, checkRecord(StoredEventSchema, event, `${where}[${i}]`) as Event)
      }
    }
  }

  /** A fresh sandbox's state: nothing but the demo group. */
  async reset(): Promise<void> {
    for (const table of [this.sessions, this.users, this.act, this.groups]) await table.clear()
    await this.events.clear()
    await this.groups.set(DEMO_GROUP.id, structuredClone(DEMO_GROUP))
  }
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
