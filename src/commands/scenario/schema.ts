import {BaseCommand} from '../../cli/base-command.js'
import {jsonFlag} from '../../cli/flags.js'
import {scenarioJsonSchema} from '../../runtime/scenario/schema.js'

export default class ScenarioSchema extends BaseCommand<typeof ScenarioSchema> {
  // Sends nothing, and its output is always the one JSON document: no profile, no format to choose.
  static override baseFlags = jsonFlag
  static override description = `Print the JSON Schema of scenario files, for editors that complete and check YAML.

The same schema is published as docs/scenario.schema.json. With the YAML language server (VS Code's YAML extension, for one), a first line such as "# yaml-language-server: $schema=./scenario.schema.json" in a scenario file turns it on.`
  static override examples = [
    '<%= config.bin %> scenario schema > scenario.schema.json',
    '<%= config.bin %> scenario schema | jq .properties.steps',
  ]

  protected async execute(): Promise<Record<string, unknown>> {
    const schema = scenarioJsonSchema()
    if (!this.output.documentWanted) {
      process.stdout.write(JSON.stringify(schema, null, 2) + '\n')
      this.output.markShown()
    }

    return schema
  }
}
