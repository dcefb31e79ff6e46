import { processEnvironment, type Environment } from '../shared/config/environment.ts';

/**
 * Where a host that runs many functions in one process (the local runtime's, local/lambda-host.ts)
 * finds how to build an entry's handler from one function's own environment.
 */
export const HANDLER_FOR = Symbol.for('prognoz.handlerFor');

export type LambdaEntry<H> = H & { readonly [HANDLER_FOR]: (env: Environment) => H };

/**
 * An entry's handler, made from its function's environment by `handlerFor`, which parses that
 * environment at the first invocation (once): on Lambda the process's own, in the local runtime
 * each function's own.
 */
export const lambdaEntry = <H extends object>(handlerFor: (env: Environment) => H): LambdaEntry<H> =>
  Object.assign(handlerFor(processEnvironment()), { [HANDLER_FOR]: handlerFor });

/** A value made at its first use, then kept: a function's adapters, as a warm Lambda container keeps them. */
export const once = <T>(make: () => T): (() => T) => {
  let made: { readonly value: T } | undefined;
  return () => (made ??= { value: make() }).value;
};
