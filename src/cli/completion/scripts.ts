/**
 * The shell side of completion: a function that hands the words typed so far to
 * `<bin> complete -- WORD...` and offers what it prints, one candidate a line. Where nothing is
 * offered (a file argument, say), the shell completes file names as usual. A candidate is
 * inserted quoted (bash `printf %q`, zsh `compadd` without -Q, fish escapes what it inserts) and
 * never split, globbed or substituted: besides `complete` printing id-safe words only
 * (src/profiles/id-safe.ts).
 */
export const COMPLETION_SHELLS = ['bash', 'zsh', 'fish'] as const
export type CompletionShell = (typeof COMPLETION_SHELLS)[number]

export function completionScript(shell: CompletionShell, bin: string): string {
  const fn = `_${bin.replaceAll(/\W/g, '_')}_complete`
  if (shell === 'bash') {
    return `# ${bin} completion for bash: eval "$(${bin} autocomplete bash --script)"
${fn}() {
  local word quoted
  COMPREPLY=()
  while IFS= read -r word; do
    printf -v quoted '%q' "$word"
    COMPREPLY+=("$quoted")
  done < <(${bin} complete -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
}
complete -o default -F ${fn} ${bin}
`
  }

  if (shell === 'fish') {
    // -f: no file names besides the candidates, unless there are none (__fish_complete_path then); -k: in the order given
    return `# ${bin} completion for fish: ${bin} autocomplete fish --script | source
function ${fn}
  set -l words (commandline -opc)
  # quoted: the word under the cursor is passed even when empty
  set -l current (commandline -ct)
  set -l candidates (${bin} complete -- $words[2..-1] "$current" 2>/dev/null)
  if set -q candidates[1]
    printf '%s\\n' $candidates
  else
    __fish_complete_path "$current"
  end
end
complete -c ${bin} -f -k -a '(${fn})'
`
  }

  return `# ${bin} completion for zsh: eval "$(${bin} autocomplete zsh --script)", after compinit
${fn}() {
  local -a candidates
  candidates=(\${(f)"$(${bin} complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null)"})
  if (( \${#candidates} )); then
    compadd -- "\${candidates[@]}"
  else
    _files
  fi
}
compdef ${fn} ${bin}
`
}

/** The one line a user adds to the shell's start-up file, and where. */
export function setupSteps(shell: CompletionShell, bin: string): string {
  const file = {bash: '~/.bashrc', fish: '~/.config/fish/config.fish', zsh: '~/.zshrc (after compinit)'}[shell]
  const line = shell === 'fish' ? `${bin} autocomplete fish --script | source` : `eval "$(${bin} autocomplete ${shell} --script)"`
  return `Add this line to ${file}, then open a new shell:

  ${line}

Then ${bin} <Tab> completes topics, commands, flags (after arguments too), flag values, profile
names, "me", checkout ids from the audit log and event ids from your listings.
`
}
