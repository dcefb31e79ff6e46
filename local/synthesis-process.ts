import { fork } from 'node:child_process';
import path from 'node:path';
import type { CfnTemplate } from './cfn-template.ts';
import { REPO_ROOT } from './paths.ts';
import { keepTemplate, keptTemplate, templateKey } from './template-cache.ts';

export type SynthesisMessage =
  { readonly type: 'template'; readonly template: CfnTemplate } | { readonly type: 'failed'; readonly message: string };

/**
 * The template synthesizeTemplate() gives, synthesized in a process of its own
 * (local/synthesis-host.ts, with this process's environment: the catalog the template is made
 * for). The CDK takes ~600 MiB and seconds to load: a process that lives on after reading the
 * template, as the local runtime's does, should not carry it, and may do other work meanwhile.
 */
export const synthesizeTemplateApart = async (): Promise<CfnTemplate> => {
  // Kept from an earlier start made of the same code, catalog and environment (template-cache.ts).
  const key = templateKey(process.env);
  const kept = keptTemplate(key);
  if (kept !== null) return kept;
  const template = await synthesizedApart();
  keepTemplate(key, template);
  return template;
};

/** The same, synthesized now whatever is kept. */
export const synthesizedApart = (): Promise<CfnTemplate> =>
  new Promise((resolve, reject) => {
    const child = fork(path.join(REPO_ROOT, 'local', 'synthesis-host.ts'), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let answer: SynthesisMessage | undefined;
    child.once('message', (message: SynthesisMessage) => (answer = message));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (answer?.type === 'template') return resolve(answer.template);
      reject(
        new Error(
          answer?.type === 'failed'
            ? `synthesizing the CDK app failed: ${answer.message}`
            : `synthesizing the CDK app ended (${String(code ?? signal)}) without a template`,
        ),
      );
    });
  });
