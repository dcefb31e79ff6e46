import * as z from 'zod';

/**
 * What a model id may be: `{owner}/{name}`, as Replicate names models. Each part starts with a
 * lower-case letter or a digit and holds lower-case letters, digits, `.`, `_` and `-`; the owner
 * is at most 39 characters (a GitHub or Replicate account's longest name), the name at most 100
 * (a GitHub repository's). Every AWS name derived from an id fits its service for ids this long
 * (./resource-names.ts).
 */
export const MODEL_ID_LIMITS = { owner: 39, name: 100 } as const;

const PART = /^[a-z0-9][a-z0-9._-]*$/;

export const modelId = z.string().superRefine((id, context) => {
  const parts = id.split('/');
  const [owner = '', name = ''] = parts;
  const problem =
    parts.length !== 2 || !PART.test(owner) || !PART.test(name)
      ? 'must be "{owner}/{model}": lower-case letters, digits, ".", "_" and "-", each part starting with a letter or a digit'
      : owner.length > MODEL_ID_LIMITS.owner
        ? `has an owner of ${owner.length} characters, more than ${MODEL_ID_LIMITS.owner}`
        : name.length > MODEL_ID_LIMITS.name
          ? `has a name of ${name.length} characters, more than ${MODEL_ID_LIMITS.name}`
          : undefined;
  if (problem !== undefined) context.addIssue({ code: 'custom', message: `the model id "${id}" ${problem}` });
});

/** The longest id allowed, for the checks that every derived name fits. */
export const LONGEST_MODEL_ID = `${'o'.repeat(MODEL_ID_LIMITS.owner)}/${'n'.repeat(MODEL_ID_LIMITS.name)}`;
