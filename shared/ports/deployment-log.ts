import type { FleetBounds } from '../domain/deployment-bounds.ts';

/**
 * One change of a deployment's configuration: its release number (the deploy is release 1, each
 * change the next), who made it and when, and the bounds before and after.
 */
export interface DeploymentChange {
  readonly model: string;
  readonly release: number;
  /** The operator: an owner's email (the API), or `cli:<user>` (`npx prognoz deployments update`). */
  readonly by: string;
  readonly atMs: number;
  readonly before: FleetBounds;
  readonly after: FleetBounds;
}

/** The port to where deployments' changes are kept (the table). */
export interface DeploymentLog {
  /** The deployment's changes, newest first, at most `limit`. */
  changes(model: string, limit: number): Promise<DeploymentChange[]>;
  /** Records a change under its release number; false when that number is taken (a change made at the same time). */
  record(change: DeploymentChange): Promise<boolean>;
}
