/** The parts of a synthesized CloudFormation template the local runtime reads. */
export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly Metadata?: Record<string, unknown>;
}
export interface CfnTemplate {
  readonly Resources: Record<string, CfnResource>;
}
