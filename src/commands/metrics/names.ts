import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {outputFlags} from '../../cli/flags.js'
import {type View} from '../../cli/output/view.js'
import {METRIC_PERIODS, METRIC_TABLE, type MetricPeriod} from '../../services/health/metrics.js'

export default class MetricsNames extends BaseCommand<typeof MetricsNames> {
  static override baseFlags = outputFlags
  static override description = `Print the supported metric names per period (the table "metrics get" checks against).

Sends nothing.`
  static override examples = [
    '<%= config.bin %> metrics names',
    '<%= config.bin %> metrics names --period daily',
    '<%= config.bin %> metrics names --json',
  ]
  static override flags = {
    period: Flags.option({description: 'only this period', options: METRIC_PERIODS})(),
  }

  static override view: View = {columns: ['period', 'name']}

  protected async execute(): Promise<{name: string; period: MetricPeriod}[]> {
    const periods = this.flags.period ? [this.flags.period] : METRIC_PERIODS
    const rows = periods.flatMap((period) => METRIC_TABLE[period].map((name) => ({period, name})))
    return rows
  }
}
