import type { FleetBounds } from '../domain/deployment-bounds.ts';

/**
 * A model's fleet as its scaler sees it: the bounds it keeps the fleet's size within, and how many
 * instances (a task: a model server and its worker) it wants and runs now.
 */
export interface FleetState extends FleetBounds {
  readonly desiredInstances: number;
  readonly runningInstances: number;
}

/** The port to the fleets' scaling (Application Auto Scaling and ECS, or the local runtime's emulation of them). */
export interface FleetScaling {
  /** The fleet on the cluster of that name; null when there is none (a model this stack does not run). */
  state(cluster: string): Promise<FleetState | null>;
  /**
   * Sets the bounds its scaler keeps the fleet within, from now on: the scalable target's, which a
   * deploy leaves as they are. Throws when the cluster runs no fleet.
   */
  resize(cluster: string, bounds: FleetBounds): Promise<void>;
}
