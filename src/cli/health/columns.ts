/** The columns of the health service's records in tables and CSV: the one place for them (commands import them from here). */
export const USER_COLUMNS = ['id', 'email', 'role', 'givenName', 'familyName', 'language', 'timeZone', 'createdDate']
export const EVENT_COLUMNS = ['id', 'date', 'medicationType', 'medicationId', 'source', 'doses', 'nightEvent', 'symptoms', 'triggers']
/** The support view (`users inspect`, `plan show`): short columns, so the whole screen fits 80 columns. */
export const PLAN_COLUMNS = ['medication', 'type', 'usage', 'sensors']
export const INSPECT_EVENT_COLUMNS = ['when', 'medication', 'doses', 'night', 'symptoms']
