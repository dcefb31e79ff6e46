import { spawn } from 'node:child_process';

/**
 * Ends the process groups of this process's children when this process ends without stopping them,
 * killed outright included (SIGKILL, or a SIGTERM to a process that has no handler for it), when
 * no code of its own runs to stop them.
 *
 * A small shell process of its own reads the groups to watch from a pipe: `+<pgid>` watches one,
 * `-<pgid>` lets it go. When the pipe closes, which the kernel does however this process ended,
 * it sends SIGTERM to every group still watched, and SIGKILL to those still there after
 * `graceSeconds`, then removes the files it was told of (`r<path>`; `k<path>` lets one go). A stop
 * in order lets every group and file go first, so the closed pipe then ends nothing.
 */
export interface Lifeline {
  /** The watcher's process (null if it could not start). */
  readonly pid: number | null;
  watch(pgid: number): void;
  release(pgid: number): void;
  /** A file to remove once the watched groups are ended (a data folder's lock), and to let go of. */
  removeAtEnd(file: string): void;
  keep(file: string): void;
  /** Ends the watcher, ending none of the groups that were let go; resolves once it has exited. */
  close(): Promise<void>;
}

// POSIX sh: the groups are a space-separated list; `kill -s TERM -- -<pgid>` signals a whole group.
// The files are one a line (a path may hold spaces); they go once every group is ended.
const WATCHER = `
groups=" "
files=""
while IFS= read -r line; do
  case "$line" in
    +*) groups="$groups\${line#+} " ;;
    -*) groups=$(printf '%s' "$groups" | sed "s/ \${line#-} / /") ;;
    r*) files="$files\${line#r}
" ;;
    k*) files=$(printf '%s' "$files" | grep -vxF -- "\${line#k}")
        [ -n "$files" ] && files="$files
" ;;
  esac
done
if [ "$groups" != " " ]; then
  for g in $groups; do kill -s TERM -- "-$g" 2>/dev/null; done
  sleep "$1"
  for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done
fi
printf '%s' "$files" | while IFS= read -r f; do [ -n "$f" ] && rm -f -- "$f"; done
exit 0
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
  const exited = new Promise<void>((resolve) => {
    if (watcher.pid === undefined) return resolve();
    watcher.once('exit', () => resolve());
    watcher.once('error', () => resolve());
  });
  const send = (line: string) => {
    if (pipe.writable) pipe.write(`${line}\n`);
  };
  return {
    pid: watcher.pid ?? null,
    watch: (pgid) => send(`+${String(pgid)}`),
    release: (pgid) => send(`-${String(pgid)}`),
    removeAtEnd: (file) => send(`r${file}`),
    keep: (file) => send(`k${file}`),
    close: () => {
      // Held until it has gone: a stop that reports done while it still runs leaves it behind a moment.
      watcher.ref();
      pipe.end();
      return exited;
    },
  };
};
