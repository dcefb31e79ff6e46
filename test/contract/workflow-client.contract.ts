import { describe, expect, it } from 'vitest';
import { newPredictionId } from '../../shared/domain/ids.ts';
import type { WorkflowClient } from '../../shared/ports/workflow-client.ts';

export interface WorkflowClientHarness {
  readonly workflow: WorkflowClient;
  /** A state machine whose executions run until stopped. */
  readonly stateMachineArn: string;
}

export type MakeWorkflowClient = () => Promise<WorkflowClientHarness>;

/** What every WorkflowClient does, whatever runs the executions. */
export const describeWorkflowClientContract = (name: string, make: MakeWorkflowClient) =>
  describe(`${name}: the workflow client`, () => {
    it("starts a prediction's execution once, and stops it", async () => {
      const { workflow, stateMachineArn } = await make();
      const id = newPredictionId();
      expect(await workflow.status(stateMachineArn, id)).toBe('MISSING');
      expect(await workflow.start(stateMachineArn, { predictionId: id })).toBe('started');
      expect(await workflow.start(stateMachineArn, { predictionId: id })).toBe('exists');
      expect(await workflow.status(stateMachineArn, id)).toBe('RUNNING');
      await workflow.stop(stateMachineArn, id, 'the prediction has ended');
      expect(await workflow.status(stateMachineArn, id)).toBe('ABORTED');
      // Stopping what ended already, or never began, is not an error.
      await workflow.stop(stateMachineArn, id, 'again');
      await workflow.stop(stateMachineArn, newPredictionId(), 'never began');
      expect(await workflow.start(stateMachineArn, { predictionId: id })).toBe('exists');
    });
  });
