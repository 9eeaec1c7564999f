import * as Flags from '@oclif/core/flags'

import {HealthCommand, healthFlags, userIdArg} from '../../cli/health/command.js'
import {chartMetrics, metricRows} from '../../cli/health/metrics-view.js'
import {reasonFlags} from '../../cli/health/reason-flag.js'
import {type View} from '../../cli/output/view.js'
import {METRIC_TABLE} from '../../services/health/metrics.js'
import {healthOps, type MetricsResult} from '../../services/health/operations.js'
import {checkMetricRequest, parseDateRange} from '../../services/health/validate.js'

export default class MetricsGet extends HealthCommand<typeof MetricsGet> {
  static override args = {userId: userIdArg}
  static override description = `Get metrics computed from a user's events, grouped into time windows.

Names must be supported for the periods asked (see "metrics names"); an unsupported pair is refused before sending (exit 5). Without --period each name uses its own period. The range defaults to the 30 days before now; windows are computed in the user's time zone. --chart draws each series.`
  static override examples = [
    '<%= config.bin %> metrics get me --name eventsRescue --name eventsRescueNight \\\n  --period daily',
    '<%= config.bin %> metrics get me --name adherencePercent --period weekly \\\n  --start 2026-02-01 --end 2026-03-01',
    '<%= config.bin %> metrics get me --name eventsRescue,rescueBaseline --chart',
    '<%= config.bin %> metrics get me --name trendTimeOfDayNight,trendTriggerColdAir \\\n  --period monthly --json',
  ]
  static override flags = {
    ...healthFlags,
    ...reasonFlags,
    name: Flags.string({delimiter: ',', description: 'metric name (repeatable or comma separated)', multiple: true, multipleNonGreedy: true, required: true}),
    period: Flags.string({delimiter: ',', description: 'series, daily, weekly or monthly (repeatable or comma separated)', multiple: true, multipleNonGreedy: true}),
    start: Flags.string({description: 'start of the range: ISO 8601, a duration back from now (7d), today or yesterday (default: 30d)'}),
    end: Flags.string({description: 'end of the range, in the same forms (default: now)'}),
    chart: Flags.boolean({description: 'draw each metric as a chart that fits the terminal', exclusive: ['output']}),
  }

  /** One row per window: period, date, then each metric (in the order of --name). */
  static override view: View = {fields: ['period', 'date', ...Object.values(METRIC_TABLE).flat()], rows: (result: MetricsResult) => metricRows(result, []).rows}

  protected override get view(): View {
    return {...MetricsGet.view, rows: (result: MetricsResult) => metricRows(result, this.flags.name).rows}
  }

  protected async execute(): Promise<MetricsResult> {
    const {flags} = this
    const periods = flags.period ?? []
    checkMetricRequest(flags.name, periods)
    const query = {
      name: flags.name,
      period: periods.length > 0 ? periods : undefined,
      ...parseDateRange(flags.start, flags.end),
    }
    const client = await this.health()
    const userId = await this.readUserId(this.args.userId, client)
    const {data} = await client.call(healthOps.getMetrics, {params: {userId}, query})
    if (flags.chart && !this.output.documentWanted) {
      process.stdout.write((await chartMetrics(data, {width: process.stdout.columns || 80})) + '\n')
      this.output.markShown()
    }

    return data
  }
}
