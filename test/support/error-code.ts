import { PrognozError } from '../../shared/domain/errors.ts';

/** The code of the PrognozError `fn` throws; undefined when it throws nothing. */
export const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (error) {
    return error instanceof PrognozError ? error.code : 'not-a-prognoz-error';
  }
  return undefined;
};
