import {recordAccess} from '../../cli/health/access.js'
import {HealthCommand, healthFlags, USER_VIEW} from '../../cli/health/command.js'
import {LINKED_PATIENT_COLUMNS, type LinkedPatient, linkedPatients} from '../../cli/health/people.js'
import {healthOps, type User} from '../../services/health/operations.js'

export default class UsersMe extends HealthCommand<typeof UsersMe> {
  static override description = `Show the signed-in user, and a caregiver's linked patients (name, email, id)

The linked patients are the users a caregiver may read besides themself: their ids go to users inspect, events list, metrics get and plan show (or their emails to users get and users inspect). --json gives the user document, plan included, with linkedPatients.`
  static override examples = [
    '<%= config.bin %> users me',
    '<%= config.bin %> users me --json',
    '<%= config.bin %> users me --language fil-PH --verbose',
  ]
  static override flags = {...healthFlags}

  static override view = USER_VIEW

  protected async execute(): Promise<User & {linkedPatients: LinkedPatient[]}> {
    const client = await this.health()
    const {data} = await client.call(healthOps.getUser)
    // The linked patients' names and emails are other users' data: a line each in the access log,
    // written before they are read, as every such read.
    const ctx = {...(await this.accessContext()), command: 'users me'}
    for (const user of data.caregiverOf ?? []) await recordAccess(ctx, {signedInUser: data.id, user})
    const document = {...data, linkedPatients: await linkedPatients(data, client)}
    if (this.output.format === 'table' && !this.output.documentWanted && !this.globals.columns?.length && document.linkedPatients.length > 0) {
      await this.output.renderPart(data, USER_VIEW)
      process.stdout.write(`\nLinked patients (${document.linkedPatients.length})\n`)
      await this.output.renderPart(document.linkedPatients, {columns: LINKED_PATIENT_COLUMNS, layout: {email: {kind: 'id', priority: 1}, id: {kind: 'id', priority: 1}, name: {kind: 'text', priority: 2}}})
      this.output.markShown()
    }

    return document
  }
}
