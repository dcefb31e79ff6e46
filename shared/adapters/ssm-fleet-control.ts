import { GetParametersByPathCommand, SSMClient } from '@aws-sdk/client-ssm';
import { parseFleetParameter } from '../fleet-parameter.ts';
import type { Fleet, FleetDirectory } from '../ports/fleet-control.ts';

// Built here rather than in aws-clients.ts: only the sweeper reads Parameter Store, and every
// function that imports aws-clients.ts would load this client at its cold start.
let ssmClient: SSMClient | undefined;
const ssm = (): SSMClient => (ssmClient ??= new SSMClient({}));

/** The fleets whose parameters lie directly under `path` in Parameter Store. */
export const ssmFleetDirectory = (path: string, client: SSMClient = ssm()): FleetDirectory => ({
  async fleets() {
    const fleets: Fleet[] = [];
    let nextToken: string | undefined;
    do {
      const page = await client.send(new GetParametersByPathCommand({ Path: path, NextToken: nextToken }));
      for (const parameter of page.Parameters ?? [])
        fleets.push(parseFleetParameter(parameter.Name ?? path, parameter.Value));
      nextToken = page.NextToken;
    } while (nextToken);
    return fleets;
  },
});
