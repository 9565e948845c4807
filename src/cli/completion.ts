/**
 * `mooring completion bash|zsh`: a shell completion script for the commands and each one's flags.
 * Both come from the command table and each command's own help, itself made from its flag table,
 * so the script never lists a flag a command does not take.
 */
import { Writable } from 'node:stream';
import { writeCliError } from './cli-error.ts';
import { EXIT, type CliContext } from './context.ts';
import { formatHelp } from './help-format.ts';
import { COMMANDS } from './index.ts';

const HELP = formatHelp({
  usage: 'mooring completion bash|zsh',
  summary:
    'Prints a completion script for the commands and their flags. bash: source <(npx mooring completion bash), or save it under /etc/bash_completion.d. zsh: source <(npx mooring completion zsh), or save it as _mooring on $fpath.',
  flags: [],
});

/** The flags a command's help lists (its `  --flag` and `  -o, --flag` lines). */
async function flagsOf(name: string, ctx: CliContext): Promise<string[]> {
  let text = '';
  const sink = new Writable({
    write(chunk, _enc, cb) {
      text += String(chunk);
      cb();
    },
  });
  const command = await COMMANDS[name]!.load();
  await command(['--help'], { ...ctx, stdout: sink, stderr: sink });
  const flags = new Set<string>();
  for (const line of text.split('\n')) {
    const left = /^ {2}(-\S.*?)(?: {2,}|$)/.exec(line)?.[1] ?? '';
    for (const m of left.matchAll(/--[a-z][a-z0-9-]*/g)) flags.add(m[0]);
  }
  return [...flags];
}

function bashScript(commands: Record<string, string[]>): string {
  const cases = Object.entries(commands)
    .map(([name, flags]) => `    ${name}) COMPREPLY=($(compgen -W "${flags.join(' ')}" -- "$cur")) ;;`)
    .join('\n');
  return `# bash completion for mooring: source <(npx mooring completion bash)
_mooring() {
  local cur=\${COMP_WORDS[COMP_CWORD]}
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "${Object.keys(commands).join(' ')} --help --version" -- "$cur"))
    return
  fi
  case "\${COMP_WORDS[1]}" in
${cases}
  esac
}
complete -o default -F _mooring mooring
`;
}

function zshScript(commands: Record<string, string[]>): string {
  const described = Object.keys(commands)
    .map((name) => `    '${name}:${COMMANDS[name]!.summary.replaceAll("'", "'\\''").replaceAll(':', '\\:')}'`)
    .join('\n');
  const cases = Object.entries(commands)
    .map(([name, flags]) => `    ${name}) compadd -- ${flags.join(' ')} ;;`)
    .join('\n');
  return `#compdef mooring
# zsh completion for mooring: source <(npx mooring completion zsh)
_mooring() {
  local -a commands
  commands=(
${described}
  )
  if (( CURRENT == 2 )); then
    _describe 'command' commands
    return
  fi
  case $words[2] in
${cases}
  esac
}
compdef _mooring mooring
`;
}

export async function completion(argv: string[], ctx: CliContext): Promise<number> {
  const [shell, ...rest] = argv;
  if (shell === '--help' || shell === '-h') {
    ctx.stdout.write(HELP);
    return EXIT.ok;
  }
  if ((shell !== 'bash' && shell !== 'zsh') || rest.length > 0) {
    writeCliError(
      ctx,
      'completion',
      'MOORING_E_INPUT_INVALID',
      `expected bash or zsh, got "${argv.join(' ')}"`,
    );
    return EXIT.usage;
  }
  const commands: Record<string, string[]> = {};
  for (const name of Object.keys(COMMANDS))
    commands[name] = name === 'completion' ? [] : await flagsOf(name, ctx);
  commands.completion = ['bash', 'zsh'];
  ctx.stdout.write(shell === 'bash' ? bashScript(commands) : zshScript(commands));
  return EXIT.ok;
}
