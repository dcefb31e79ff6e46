import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

const notFound = (error: unknown): boolean => (error as { code?: unknown }).code === 'ENOENT';

/** The package of an apt-get argument: `ffmpeg=7:5.1.6-0+deb12u1` and `ffmpeg/bookworm` are `ffmpeg`. */
export const debianPackageName = (argument: string): string => argument.trim().split(/[=/]/)[0] ?? '';

/**
 * The packages among `names` that are not installed, as dpkg knows them; null on a machine
 * without dpkg (not Debian or Ubuntu), where nobody can tell.
 */
export const missingDebianPackages = async (names: readonly string[]): Promise<string[] | null> => {
  const missing: string[] = [];
  for (const name of names) {
    try {
      const { stdout } = await run('dpkg-query', ['-W', '-f=${db:Status-Abbrev}', debianPackageName(name)]);
      // "ii": wanted and installed; "rc" and the like: removed, its configuration left.
      if (!stdout.startsWith('ii')) missing.push(name);
    } catch (error) {
      if (notFound(error)) return null;
      missing.push(name); // "no packages found matching": dpkg has never heard of it
    }
  }
  return missing;
};

/** The version Debian's package lists on this machine offer of `name`, or null (none, or no apt). */
export const debianCandidate = async (name: string): Promise<string | null> => {
  try {
    const { stdout } = await run('apt-cache', ['policy', name]);
    const candidate = /^\s*Candidate:\s*(\S+)/m.exec(stdout)?.[1];
    return candidate && candidate !== '(none)' ? candidate : null;
  } catch {
    return null;
  }
};

/** Whether this process may install Debian packages: as scripts/setup-local.sh does, as root where apt-get is. */
export const mayInstallDebianPackages = async (): Promise<boolean> => {
  if (process.getuid?.() !== 0) return false;
  try {
    await run('apt-get', ['--version']);
    return true;
  } catch {
    return false;
  }
};

/**
 * Installs Debian packages with apt-get, as scripts/setup-local.sh installs what the project needs.
 * The package lists are read as they are first (the caller has found its candidates in them), and
 * refreshed once if apt-get fails on them, as it does when they name versions the mirror has dropped.
 */
export const installDebianPackages = async (names: readonly string[], log: (line: string) => void): Promise<void> => {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () =>
    run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...names], {
      env,
      maxBuffer: 64 * 1024 * 1024,
    });
  log(`prognoz: installing ${names.join(' ')} with apt-get…`);
  try {
    await install();
  } catch {
    await run('apt-get', ['update', '-qq'], { env, maxBuffer: 64 * 1024 * 1024 });
    await install();
  }
};
