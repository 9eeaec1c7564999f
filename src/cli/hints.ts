/**
 * The only place with "opsctl ..." next-step text. Rules, workflows and the HTTP layer report facts
 * (codes and values); the CLI turns them into the "Try this:" lines under an error.
 */

export const hints = {
  help: (commandId: string | undefined) => `See: opsctl ${commandId?.replaceAll(':', ' ') ?? ''} --help`.trim(),
  profileList: 'See the profiles: opsctl profile list',
}
