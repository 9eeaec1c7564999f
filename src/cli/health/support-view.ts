/**
 * Rows of the support view (`users inspect`, `plan show`): short columns, so that the whole
 * screen fits 80 columns.
 */
import type {Event, PlanMedication, User} from '../../services/health/operations.js'
import type {PeriodSummary} from '../../services/health/support.js'

/** `08:00 x2, 20:00 x2` */
function usageText(usage: PlanMedication['usageList']): string {
  const pad = (n: number) => String(n).padStart(2, '0')
  return usage.map((u) => `${pad(u.hour)}:${pad(u.minute)} x${u.doses}`).join(', ')
}

export function planRows(medications: readonly PlanMedication[]): Record<string, string>[] {
  return medications.map((m) => ({
    medication: m.medicationId,
    type: m.medicationType ?? '',
    usage: usageText(m.usageList),
    sensors: m.sensors.map((s) => (s.batteryLevel === undefined ? s.mac : `${s.mac} (battery ${s.batteryLevel}%)`)).join(', '),
  }))
}

/** `2026-03-01 23:30` in the user's time zone (the zone night events are counted in). */
export function localMinute(iso: string, timeZone: string | undefined): string {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return iso
  try {
    return new Intl.DateTimeFormat('sv-SE', {dateStyle: 'short', timeStyle: 'short', timeZone: timeZone ?? 'UTC'}).format(date)
  } catch {
    return iso
  }
}

export function eventRows(events: readonly Event[], timeZone: string | undefined): Record<string, unknown>[] {
  return events.map((e) => ({
    id: e.id,
    when: localMinute(e.date, timeZone),
    medication: e.medicationId ?? '',
    doses: e.doses ?? '',
    night: e.nightEvent ? 'night' : '',
    symptoms: e.symptoms.join(','),
  }))
}

export function userDetail(user: User): Record<string, unknown> {
  const name = [user.givenName, user.familyName].filter(Boolean).join(' ')
  return {
    id: user.id,
    name,
    email: user.email,
    role: user.role,
    timeZone: user.timeZone,
    language: user.language,
    ...(user.disease === undefined ? {} : {disease: user.disease}),
    ...(user.birthDate === undefined ? {} : {birthDate: user.birthDate}),
    ...(user.caregiverOf === undefined ? {} : {caregiverOf: user.caregiverOf.join(', ')}),
    ...(user.createdDate === undefined ? {} : {createdDate: user.createdDate}),
  }
}

export function periodDetail(m: PeriodSummary): Record<string, unknown> {
  return {
    rescueEvents: m.rescueEvents,
    rescueAtNight: m.rescueNightEvents,
    controllerDoses: `${m.controllerDosesTaken} taken of ${m.controllerDosesPrescribed} prescribed`,
    adherence: m.adherencePercent === null ? 'n/a (no controller on the plan)' : `${m.adherencePercent}%`,
  }
}

/** `2026-11-21 14:05 to 2026-11-28 14:05 (Asia/Manila)` */
export function periodText(m: Pick<PeriodSummary, 'endDate' | 'startDate' | 'timeZone'>): string {
  return `${localMinute(m.startDate, m.timeZone)} to ${localMinute(m.endDate, m.timeZone)} (${m.timeZone})`
}
