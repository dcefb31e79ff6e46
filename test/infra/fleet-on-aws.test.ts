import { Match, type Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { MODEL_ENTRYPOINT_ENV } from '../../infra/cog/model-entrypoint.ts';
import { FLEET_BOOT_COMMANDS, INSTANCE_METADATA_ADDRESS } from '../../infra/constructs/fleet-capacity.ts';
import { backlogScalingSteps, checkFleetBounds, MAX_STEP_ADJUSTMENTS } from '../../infra/constructs/fleet-scaling.ts';
import { WORKER_DRAIN_SECONDS, WORKER_STOP_TIMEOUT_SECONDS } from '../../infra/constructs/fleet-task.ts';
import { fixtureModel, synthFleet } from '../support/fleet.ts';

type Resource = { Type: string; Properties: Record<string, unknown>; DependsOn?: string[] };
const resourcesOf = (template: Template, type: string) =>
  Object.entries(template.findResources(type)) as [string, Resource][];
const propertiesOf = (template: Template, type: string): Record<string, unknown> => {
  const [first] = resourcesOf(template, type);
  if (!first) throw new Error(`no ${type} in the template`);
  return first[1].Properties;
};

interface Container {
  Name: string;
  Environment?: { Name: string; Value: unknown }[];
  PortMappings?: { HostPort?: number }[];
  RestartPolicy?: { Enabled: boolean; IgnoredExitCodes?: number[]; RestartAttemptPeriod?: number };
  StopTimeout?: number;
  Secrets?: unknown[];
}
const containersOf = (template: Template): Record<string, Container> => {
  return Object.fromEntries(
    ((propertiesOf(template, 'AWS::ECS::TaskDefinition').ContainerDefinitions ?? []) as Container[]).map(
      (container) => [container.Name, container],
    ),
  );
};

/** A t3.small fleet of small CPU tasks, as echo and stream are: the case that crash-looped at two tasks. */
const cpu = synthFleet(fixtureModel('cpu-model', { fleet: { maxTasks: 3, memoryMiB: 512 } })).template;
/** A whisper-like GPU fleet: up to four tasks, five jobs per task. */
const gpu = synthFleet(fixtureModel('gpu-model', { fleet: { maxTasks: 4, backlogPerTask: 5 } })).template;

describe('a fleet scales past one task on any instance size', () => {
  it("runs its containers on Docker's bridge with no host ports, so tasks share an instance; nothing pins one task to an instance", () => {
    for (const template of [cpu, gpu]) {
      template.hasResourceProperties('AWS::ECS::TaskDefinition', { NetworkMode: 'bridge' });
      for (const container of Object.values(containersOf(template)))
        expect(container.PortMappings ?? [], container.Name).toEqual([]);
      const service = propertiesOf(template, 'AWS::ECS::Service');
      expect(JSON.stringify(service.PlacementConstraints ?? [])).not.toContain('distinctInstance');
      // At worst one task an instance: the instances may grow as far as the tasks.
      template.hasResourceProperties('AWS::AutoScaling::AutoScalingGroup', { MinSize: '0' });
      const group = propertiesOf(template, 'AWS::AutoScaling::AutoScalingGroup');
      const target = propertiesOf(template, 'AWS::ApplicationAutoScaling::ScalableTarget');
      expect(Number(group.MaxSize)).toBeGreaterThanOrEqual(Number(target.MaxCapacity));
    }
    // New tasks start beside old ones in a deploy: there is no port for them to fight over.
    cpu.hasResourceProperties('AWS::ECS::Service', {
      DeploymentConfiguration: Match.objectLike({ MaximumPercent: 200, MinimumHealthyPercent: 100 }),
      PlacementStrategies: [{ Type: 'binpack', Field: 'MEMORY' }],
    });
  });
});

describe('a deploy leaves a running fleet as it is', () => {
  it('sets no DesiredCount: the count is the scaler’s, from its minimum of warm tasks', () => {
    for (const template of [cpu, gpu]) {
      template.hasResourceProperties('AWS::ECS::Service', { DesiredCount: Match.absent() });
      template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
        ScalableDimension: 'ecs:service:DesiredCount',
        MinCapacity: 0,
      });
    }
  });

  it('creates and deletes a service only after its capacity provider is associated with its cluster', () => {
    for (const template of [cpu, gpu]) {
      const [[association] = ['']] = resourcesOf(template, 'AWS::ECS::ClusterCapacityProviderAssociations');
      expect(association).not.toBe('');
      for (const [, service] of resourcesOf(template, 'AWS::ECS::Service'))
        expect(service.DependsOn ?? []).toContain(association);
    }
  });
});

describe('scale-in never cuts a running prediction short', () => {
  it('protects instances that run tasks (managed termination protection) and lets the worker protect its task', () => {
    cpu.hasResourceProperties('AWS::ECS::CapacityProvider', {
      AutoScalingGroupProvider: Match.objectLike({
        ManagedTerminationProtection: 'ENABLED',
        ManagedDraining: 'ENABLED',
      }),
    });
    cpu.hasResourceProperties('AWS::AutoScaling::AutoScalingGroup', { NewInstancesProtectedFromScaleIn: true });
    const taskRolePolicies = resourcesOf(cpu, 'AWS::IAM::Policy')
      .filter(([id]) => id.includes('TaskRole'))
      .map(([, policy]) => JSON.stringify(policy.Properties.PolicyDocument));
    expect(taskRolePolicies.join()).toContain('ecs:UpdateTaskProtection');
  });

  it('gives the worker time to drain on SIGTERM: its drain, then ECS’s stop timeout a little later', () => {
    const worker = containersOf(cpu).Worker;
    const environment = Object.fromEntries((worker?.Environment ?? []).map(({ Name, Value }) => [Name, Value]));
    expect(environment.PROGNOZ_DRAIN_SECONDS).toBe(String(WORKER_DRAIN_SECONDS));
    expect(worker?.StopTimeout).toBe(WORKER_STOP_TIMEOUT_SECONDS);
    expect(WORKER_STOP_TIMEOUT_SECONDS).toBeGreaterThan(WORKER_DRAIN_SECONDS);
    // ECS's ceiling on a container's stop timeout.
    expect(WORKER_STOP_TIMEOUT_SECONDS).toBeLessThanOrEqual(120);
  });
});

describe('a crash costs a run, not a task', () => {
  it('restarts the model server and a crashed worker in place; a worker that drained (exit 0) ends the task', () => {
    const { ModelServer: model, Worker: worker } = containersOf(gpu);
    expect(model?.RestartPolicy).toEqual({ Enabled: true, RestartAttemptPeriod: 60 });
    expect(worker?.RestartPolicy).toEqual({ Enabled: true, IgnoredExitCodes: [0], RestartAttemptPeriod: 60 });
  });
});

describe('scaling on the backlog', () => {
  /** The tasks the synthesized policies ask for at each backlog, read back from the template. */
  const askedFor = (template: Template) => {
    const alarms = resourcesOf(template, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
    const policies = new Map(
      resourcesOf(template, 'AWS::ApplicationAutoScaling::ScalingPolicy').map(([id, policy]) => [
        id,
        policy.Properties,
      ]),
    );
    const rules = alarms.map((alarm) => {
      const policy = policies.get((alarm.AlarmActions as { Ref: string }[])[0]?.Ref ?? '');
      const steps = (policy?.StepScalingPolicyConfiguration as { StepAdjustments: Record<string, number>[] })
        .StepAdjustments;
      return { operator: String(alarm.ComparisonOperator), threshold: Number(alarm.Threshold), steps };
    });
    return (backlog: number): number[] =>
      rules.flatMap(({ operator, threshold, steps }) => {
        const inAlarm = operator === 'LessThanOrEqualToThreshold' ? backlog <= threshold : backlog >= threshold;
        if (!inAlarm) return [];
        // Application Auto Scaling's bounds: above the threshold a step's lower bound is inclusive
        // and its upper exclusive; below it, the other way round.
        const above = operator !== 'LessThanOrEqualToThreshold';
        const step = steps.find((s) => {
          const lower = s.MetricIntervalLowerBound === undefined ? -Infinity : threshold + s.MetricIntervalLowerBound;
          const upper = s.MetricIntervalUpperBound === undefined ? Infinity : threshold + s.MetricIntervalUpperBound;
          return above ? backlog >= lower && backlog < upper : backlog > lower && backlog <= upper;
        });
        return step ? [step.ScalingAdjustment ?? 0] : [];
      });
  };

  it('never has both alarms in ALARM at one backlog value (no flapping), and sizes the fleet to ceil(backlog / 5)', () => {
    const tasksAt = askedFor(gpu);
    const expected: [number, number[]][] = [
      [0, [0]],
      [0.5, []],
      [1, [1]],
      [5, [1]],
      [6, [2]],
      [10, [2]],
      [11, [3]],
      [16, [4]],
      [500, [4]],
    ];
    for (const [backlog, tasks] of expected) expect(tasksAt(backlog), `backlog ${backlog}`).toEqual(tasks);
    for (let backlog = 0; backlog <= 40; backlog += 0.25)
      expect(tasksAt(backlog).length, `backlog ${backlog}`).toBeLessThanOrEqual(1);
  });

  it('counts a task of a model that runs four at once (concurrency.max 4) for four jobs, and refuses fewer', () => {
    const fourAtOnce = fixtureModel('cpu-model', { fleet: { maxTasks: 3, backlogPerTask: 4 } });
    expect(fourAtOnce.predictor.concurrency).toBe(4);
    const tasksAt = askedFor(synthFleet(fourAtOnce).template);
    expect([1, 4, 5, 8, 9, 99].map(tasksAt)).toEqual([[1], [1], [2], [2], [3], [3]]);
    expect(() => synthFleet(fixtureModel('cpu-model', { fleet: { backlogPerTask: 3 } }))).toThrow(
      /acme\/cpu-model: its fleet's backlogPerTask \(3\) is less than the predictions one task runs at once \(concurrency\.max 4\)/,
    );
  });

  it("asks from 0 up to the cap: the scalable target's bounds, which an operator moves at run time, clamp the steps", () => {
    const model = fixtureModel('gpu-model', { fleet: { maxTasks: 4, maxTasksCap: 8, backlogPerTask: 5 } });
    const raisable = synthFleet(model, 2).template;
    const tasksAt = askedFor(raisable);
    expect([0, 1, 6, 16, 21, 36, 99].map(tasksAt)).toEqual([[0], [1], [2], [4], [5], [8], [8]]);
    expect(tasksAt(0.5)).toEqual([]);
    // The minimum and maximum a first deploy registers; the instances may grow as far as the cap.
    raisable.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', { MinCapacity: 2, MaxCapacity: 4 });
    raisable.hasResourceProperties('AWS::AutoScaling::AutoScalingGroup', { MinSize: '0', MaxSize: '8' });
  });

  it('refuses bounds the scalable target would not take, and a cap past the steps one policy may hold', () => {
    expect(backlogScalingSteps({ maxTasksCap: 3, backlogPerTask: 5 })).toEqual([
      { upper: 0, change: 0 },
      { lower: 1, change: 1 },
      { lower: 6, change: 2 },
      { lower: 11, change: 3 },
    ]);
    expect(() => checkFleetBounds({ minWarm: 5, maxTasks: 4, maxTasksCap: 4 })).toThrow(/minWarmTasks/);
    expect(() => checkFleetBounds({ minWarm: -1, maxTasks: 4, maxTasksCap: 4 })).toThrow(/minWarmTasks/);
    expect(() => checkFleetBounds({ minWarm: 0, maxTasks: 0, maxTasksCap: 4 })).toThrow(/maxTasks/);
    expect(() => checkFleetBounds({ minWarm: 0, maxTasks: 4, maxTasksCap: 3 })).toThrow(/maxTasksCap/);
    expect(() => backlogScalingSteps({ maxTasksCap: MAX_STEP_ADJUSTMENTS + 1, backlogPerTask: 5 })).toThrow(
      /maxTasksCap must be at most 20/,
    );
    expect(() => synthFleet(fixtureModel('gpu-model', { fleet: { maxTasks: 4, maxTasksCap: 3 } }))).toThrow(
      /maxTasksCap/,
    );
  });
});

describe('what a model container can reach', () => {
  it('not the instance metadata service: IMDSv2 tokens die one hop out, and the host drops containers’ packets to it', () => {
    for (const template of [cpu, gpu]) {
      template.hasResourceProperties('AWS::EC2::LaunchTemplate', {
        LaunchTemplateData: Match.objectLike({
          MetadataOptions: { HttpTokens: 'required', HttpPutResponseHopLimit: 1 },
        }),
      });
      const userData = JSON.stringify(propertiesOf(template, 'AWS::EC2::LaunchTemplate').LaunchTemplateData);
      for (const command of FLEET_BOOT_COMMANDS) expect(userData).toContain(JSON.stringify(command).slice(1, -1));
    }
    expect(FLEET_BOOT_COMMANDS.join('\n')).toMatch(
      new RegExp(
        `iptables --insert DOCKER-USER 1 --in-interface docker\\+ --destination ${INSTANCE_METADATA_ADDRESS}/32 --jump DROP`,
      ),
    );
    // Host networking would put containers on the host's own stack, beyond the reach of that rule.
    cpu.hasResourceProperties('AWS::ECS::TaskDefinition', { NetworkMode: Match.not('host') });
  });

  it('no credentials of its own: nothing in the model server’s definition carries any', () => {
    const model = containersOf(cpu).ModelServer;
    expect(model?.Secrets).toBeUndefined();
    // Only the age at which its entrypoint prunes coglet's run folders, which the entrypoint unsets before coglet starts.
    const names = (model?.Environment ?? []).map(({ Name }) => Name);
    expect(names.filter((name) => /^AWS_|^PROGNOZ_/.test(name))).toEqual([MODEL_ENTRYPOINT_ENV.keepRunsMinutes]);
  });
});

describe('instance storage', () => {
  it('is an encrypted gp3 root volume, larger for GPU images', () => {
    const volumeOf = (template: Template) => {
      return (
        propertiesOf(template, 'AWS::EC2::LaunchTemplate').LaunchTemplateData as {
          BlockDeviceMappings: { Ebs: Record<string, unknown> }[];
        }
      ).BlockDeviceMappings[0]?.Ebs;
    };
    expect(volumeOf(cpu)).toMatchObject({ Encrypted: true, VolumeType: 'gp3', VolumeSize: 30 });
    expect(volumeOf(gpu)).toMatchObject({ Encrypted: true, VolumeType: 'gp3', VolumeSize: 100 });
  });
});
