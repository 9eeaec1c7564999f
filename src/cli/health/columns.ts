/** The columns of the health service's records in tables and CSV: the one place for them (commands import them from here). */
export const USER_COLUMNS = ['id', 'email', 'role', 'givenName', 'familyName', 'language', 'timeZone', 'createdDate']
export const EVENT_COLUMNS = ['id', 'date', 'medicationType', 'medicationId', 'source', 'doses', 'nightEvent', 'symptoms', 'triggers']
/** The support view (`users inspect`, `plan show`): short columns, so the whole screen fits 80 columns. */
export const PLAN_COLUMNS = ['medication', 'type', 'usage', 'sensors']
export const INSPECT_EVENT_COLUMNS = ['id', 'when', 'medication', 'doses', 'night', 'symptoms']
/** The event id (events get, events update take it), when, night and symptoms kept first; doses give way first. */
export const INSPECT_EVENT_LAYOUT = {
  doses: {priority: 3},
  id: {kind: 'id', priority: 1},
  medication: {priority: 2},
  night: {priority: 1},
  symptoms: {kind: 'text', priority: 1},
  when: {priority: 1},
} as const
