/**
 * An AWS SDK imported at its first use rather than at a function's cold start (bench §4), and the
 * process's own client made from it once (`make`: its production defaults; its endpoint comes
 * from `AWS_ENDPOINT_URL_<SERVICE>`, as every client's does: aws-clients.ts).
 */
export const lazySdk = <Sdk, Client>(load: () => Promise<Sdk>, make: (sdk: Sdk) => Client) => {
  let own: Promise<Client> | undefined;
  /** The process's own client. */
  const client = (): Promise<Client> => (own ??= load().then(make));
  /** `given` (a test's, an emulator's), or else the process's own client. */
  const clientOr = (given: Client | undefined) => (): Promise<Client> =>
    given === undefined ? client() : Promise.resolve(given);
  /**
   * What an adapter calls before each request: the SDK's module (its commands) and `given` or else
   * the process's own client, both loaded at the first call and kept.
   */
  const sdkAndClient = (given?: Client) => {
    const chosen = clientOr(given);
    return () => Promise.all([load(), chosen()]);
  };
  return { client, clientOr, sdkAndClient };
};
