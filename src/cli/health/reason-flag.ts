/**
 * `--reason` of the commands that read a user's health data (./access.ts says when it is needed).
 * Apart from ./access.ts so that `api`, which loads little at start-up, can offer it.
 */
import * as Flags from '@oclif/core/flags'

export const reasonFlags = {
  reason: Flags.string({
    description:
      "why you read another user's health data, written to the access log (<config dir>/access.jsonl); on a production profile it is asked in a terminal and required without one",
  }),
}
