import { spawn } from 'node:child_process';

/**
 * Ends the process groups of this process's children when this process ends without stopping them,
 * killed outright included (SIGKILL, or a SIGTERM to a process that has no handler for it), when
 * no code of its own runs to stop them.
 *
 * A small shell process of its own reads the groups to watch from a pipe: `+<pgid>` watches one,
 * `-<pgid>` lets it go. When the pipe closes, which the kernel does however this process ended,
 * it sends SIGTERM to every group still watched, and SIGKILL to those still there after
 * `graceSeconds`. A stop in order lets every group go first, so the closed pipe then ends nothing.
 */
export interface Lifeline {
  watch(pgid: number): void;
  release(pgid: number): void;
  /** Ends the watcher, ending none of the groups. */
  close(): void;
}

// POSIX sh: the groups are a space-separated list; `kill -s TERM -- -<pgid>` signals a whole group.
const WATCHER = `
groups=" "
while IFS= read -r line; do
  case "$line" in
    +*) groups="$groups\${line#+} " ;;
    -*) groups=$(printf '%s' "$groups" | sed "s/ \${line#-} / /") ;;
  esac
done
[ "$groups" = " " ] && exit 0
for g in $groups; do kill -s TERM -- "-$g" 2>/dev/null; done
sleep "$1"
for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done
`;

export const startLifeline = (graceSeconds = 5): Lifeline => {
  const watcher = spawn('sh', ['-c', WATCHER, 'prognoz-lifeline', String(graceSeconds)], {
    stdio: ['pipe', 'ignore', 'ignore'],
    // Its own group: a Ctrl-C to the terminal's group does not end it before it has done its work.
    detached: true,
  });
  // It does not keep this process running (nor does its pipe, idle between writes).
  watcher.unref();
  const pipe = watcher.stdin;
  // A watcher that could not start, or ended, leaves the pipe broken: the runtime goes on without it.
  pipe.on('error', () => undefined);
  watcher.on('error', () => undefined);
  const send = (line: string) => {
    if (pipe.writable) pipe.write(`${line}\n`);
  };
  return {
    watch: (pgid) => send(`+${String(pgid)}`),
    release: (pgid) => send(`-${String(pgid)}`),
    close: () => pipe.end(),
  };
};
