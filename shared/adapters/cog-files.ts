import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  COG_KEYS,
  CogConfigError,
  parseCogFile,
  predictKeyOf,
  type CogConfig,
  type CogFile,
  type CogIssue,
} from '../catalog/cog-config.ts';

/**
 * Reads `<folder>/cog.yaml`, and checks that the files it names are in the folder: the predictor's
 * module and the requirements file, which both the image and a local environment are built from.
 */
export const readCogFile = (folder: string): CogFile => {
  const file = path.join(folder, 'cog.yaml');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new CogConfigError([
      {
        file,
        line: null,
        column: null,
        subject: null,
        problem: `no cog.yaml: ${folder} is not a Cog predictor folder`,
      },
    ]);
  }
  const cog = parseCogFile(text, file);
  const missing: CogIssue[] = [];
  const module = cog.config.predict.split(':')[0] ?? '';
  if (!existsSync(path.join(folder, module))) {
    missing.push(cog.issue(predictKeyOf(cog.config), `${module} is not in the predictor folder ${folder}`));
  }
  const requirements = cog.config.pythonRequirements;
  if (requirements !== null && !existsSync(path.join(folder, requirements))) {
    missing.push(cog.issue(COG_KEYS.pythonRequirements, `${requirements} is not in the predictor folder ${folder}`));
  }
  if (missing.length > 0) throw new CogConfigError(missing);
  return cog;
};

/** Reads `<folder>/cog.yaml` (readCogFile, the config alone). */
export const readCogConfig = (folder: string): CogConfig => readCogFile(folder).config;
