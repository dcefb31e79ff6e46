/** A model's fleet: the queue its jobs wait on, and the ECS service whose tasks take them. */
export interface Fleet {
  readonly modelId: string;
  readonly queueUrl: string;
  /** The service's cluster (name or ARN). */
  readonly cluster: string;
  /** The service (name or ARN). */
  readonly service: string;
}

/** The port to where the stack lists the fleets (Parameter Store). */
export interface FleetDirectory {
  fleets(): Promise<Fleet[]>;
}

/** The port to the model queues (SQS, or its local emulator). */
export interface JobQueues {
  /** Jobs on the queue that no worker holds: they wait for a task to take them. */
  waitingJobs(queueUrl: string): Promise<number>;
}

/** The port to the fleets' services (ECS). */
export interface FleetServices {
  /** The tasks the service wants running (its desired count), whatever runs now. */
  desiredTasks(fleet: Pick<Fleet, 'cluster' | 'service'>): Promise<number>;
  setDesiredTasks(fleet: Pick<Fleet, 'cluster' | 'service'>, tasks: number): Promise<void>;
}
