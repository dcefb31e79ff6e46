import { DOCS_PATH } from '../../shared/api/docs-site.ts';
import { isPublicRoute, ROUTES } from '../../shared/api/routes.ts';
import { ApiDocs } from '../constructs/api-docs.ts';
import { ConsoleSite } from '../constructs/console-site.ts';
import { FleetCapacity } from '../constructs/fleet-capacity.ts';
import { FleetTask } from '../constructs/fleet-task.ts';
import { OwnerSignIn } from '../constructs/owner-sign-in.ts';
import { PredictionApi } from '../constructs/prediction-api.ts';
import { PredictionWorkflow } from '../constructs/prediction-workflow.ts';
import { PrognozFunction } from '../constructs/prognoz-function.ts';
import {
  allOf,
  anyOf,
  apiMethods,
  inside,
  insideConstructNamed,
  nagItem,
  wildcardResourceOnlyFor,
  type NagSuppression,
} from './where.ts';

const functionPolicy = inside(PrognozFunction, 'Role/DefaultPolicy/Resource');
const fleetTaskPolicy = inside(FleetTask, 'Task/TaskRole/DefaultPolicy/Resource');
/** CDK's one handler for every BucketDeployment of a stack (the console's and the reference page's files). */
const bucketDeployment = (...paths: string[]) =>
  insideConstructNamed(/^Custom::CDKBucketDeployment[0-9A-F]{32}$/, ...paths);
const isDocsPath = (path: string) => path === DOCS_PATH || path.startsWith(`${DOCS_PATH}/`);

/**
 * Every AwsSolutions finding prognoz accepts (infra/nag/checks.ts fails the synthesis on any
 * other). An entry with `fix` is a finding to fix, accepted until it is; the test
 * (test/infra/nag.test.ts) fails on an entry that no longer accepts anything.
 */
export const NAG_SUPPRESSIONS: readonly NagSuppression[] = [
  // — Grants on the table and the outputs bucket —
  {
    rule: 'AwsSolutions-IAM5',
    items: /^Resource::<[^>]*DataTable[^>]*>\/index\/\*$/,
    where: anyOf(functionPolicy, fleetTaskPolicy),
    reason:
      "table.grantReadData/grantReadWriteData allow the same actions on `table/index/*`: the indexes of prognoz's one table (owner, sweep, delivery), which the functions and the worker query. Naming each index would mean a grant per index in every role, changed with every new index, and would reach nothing less.",
  },
  {
    rule: 'AwsSolutions-IAM5',
    items: /^Resource::<[^>]*DataOutputs[^>]*>\/\*$/,
    where: anyOf(functionPolicy, fleetTaskPolicy),
    reason:
      'Objects of the outputs bucket: their keys are prediction and file ids made at run time, so object grants name the bucket with `/*`. The wildcard stays inside that one bucket.',
  },
  {
    rule: 'AwsSolutions-IAM5',
    items: /^Resource::<[^>]*DataOutputs[^>]*>\/inputs\/\*$/,
    where: anyOf(functionPolicy, fleetTaskPolicy),
    reason:
      "Large inputs kept by reference (inputObjectKey: `inputs/<prediction id>.json`): the create function writes and removes them, the model's worker reads them; their keys are prediction ids made at run time, so the grant names the prefix with `/*`, narrower than the bucket's.",
  },
  {
    rule: 'AwsSolutions-IAM5',
    items: /^Action::s3:Abort\*$/,
    where: anyOf(functionPolicy, fleetTaskPolicy),
    reason:
      'From bucket.grantPut (uploads, outputs): s3:Abort* is s3:AbortMultipartUpload and nothing else, on objects of the outputs bucket.',
  },
  {
    rule: 'AwsSolutions-IAM5',
    items: /^Action::s3:DeleteObject\*$/,
    where: functionPolicy,
    reason:
      "From bucket.grantDelete (DELETE /v1/files/{id}): s3:DeleteObject* is DeleteObject, DeleteObjectTagging and their Version forms, on objects of the outputs bucket; the bucket is not versioned, so the Version forms have nothing to act on. Narrower still: grant it on `files/*` only (uploads' prefix, fileObjectKey), which is in infra/stack.ts.",
  },
  {
    rule: 'AwsSolutions-IAM5',
    items: nagItem(
      String.raw`^Resource::arn:<AWS::Partition>:states:{region}:{account}:(stateMachine|execution):[\w-]+-\*(:\*)?$`,
    ),
    where: functionPolicy,
    reason:
      "WorkflowArns grants start, describe and stop on the workflows by their names' prefix (the stack's name and '-'): the main stack's functions then need no change, and no reference into each model's nested stack, when a model comes or goes. It also covers the workflows of another stack whose name begins with this one's and '-', in the same account and region: deploy stacks under names that are not prefixes of one another.",
  },
  {
    rule: 'AwsSolutions-IAM5',
    items: nagItem(String.raw`^Resource::arn:<AWS::Partition>:sqs:{region}:{account}:[\w-]+-waiter-\*$`),
    where: anyOf(functionPolicy, fleetTaskPolicy),
    reason:
      "WaiterQueues grants on the waiter queues by their names' prefix (the stack's name and '-waiter-'): each waiting process (a create function's execution environment) makes its own queue at run time, so no name is known when deploying. It also covers the waiter queues of another stack whose name begins with this one's and '-waiter-', in the same account and region.",
  },
  {
    rule: 'AwsSolutions-IAM5',
    items: /^Resource::\*$/,
    where: allOf(functionPolicy, wildcardResourceOnlyFor(['sqs:ListQueues'])),
    reason:
      "The sweeper finds the old waiter queues by their names' prefix: sqs:ListQueues has no resource-level permission (Service Authorization Reference, Amazon SQS). It lists names only; the deletes are granted on the waiter queues alone.",
  },

  {
    rule: 'AwsSolutions-IAM5',
    items: nagItem(String.raw`^Resource::arn:<AWS::Partition>:ecs:{region}:{account}:service/[\w-]+-\*/\*$`),
    where: functionPolicy,
    reason:
      "The deployments routes read each model's fleet by its cluster's name, which is the stack's name, '-' and the model's (fleetClusterName): DescribeServices on the services of those clusters, and UpdateService, which Application Auto Scaling requires of whoever registers an ECS service's scalable target (an operator's resize). Naming each would mean a reference into every model's nested stack; it also covers the clusters of another stack whose name begins with this one's and '-', in the same account and region.",
  },
  {
    rule: 'AwsSolutions-IAM5',
    items: /^Resource::\*$/,
    where: allOf(
      functionPolicy,
      wildcardResourceOnlyFor([
        'application-autoscaling:DescribeScalableTargets',
        'application-autoscaling:RegisterScalableTarget',
        'ecs:ListServices',
      ]),
    ),
    reason:
      "The deployments routes find a fleet's service (ecs:ListServices), read its bounds from its scalable target (application-autoscaling:DescribeScalableTargets) and register an operator's new bounds on it (application-autoscaling:RegisterScalableTarget). The first two take no resource-level permission (Service Authorization Reference); RegisterScalableTarget's resource is the target's ARN, whose id Application Auto Scaling makes at registration, so no template can name it. ListServices is held to the fleets' clusters by its `ecs:cluster` condition, and RegisterScalableTarget reaches only ECS services whose ecs:DescribeServices and ecs:UpdateService the function holds: the fleets'.",
  },

  // — The models' workflows (Step Functions) —
  {
    rule: 'AwsSolutions-IAM5',
    items: /^Resource::\*$/,
    where: allOf(
      inside(PredictionWorkflow, 'StateMachine/Role/DefaultPolicy/Resource'),
      wildcardResourceOnlyFor([
        'logs:CreateLogDelivery',
        'logs:GetLogDelivery',
        'logs:UpdateLogDelivery',
        'logs:DeleteLogDelivery',
        'logs:ListLogDeliveries',
        'logs:PutResourcePolicy',
        'logs:DescribeResourcePolicies',
        'logs:DescribeLogGroups',
        'xray:PutTraceSegments',
        'xray:PutTelemetryRecords',
        'xray:GetSamplingRules',
        'xray:GetSamplingTargets',
      ]),
    ),
    reason:
      "The state machine's logging to CloudWatch Logs and its X-Ray tracing (the fixes of AwsSolutions-SF1 and SF2) need these actions, which AWS does not let a policy scope to a resource (Step Functions' guide, 'IAM policies for logging to CloudWatch Logs'; X-Ray's). No other action is allowed on `*`.",
  },
  {
    rule: 'AwsSolutions-IAM5',
    items: /^Resource::<[^>]*FinalizeFunction[^>]*>:\*$/,
    where: inside(PredictionWorkflow, 'StateMachine/Role/DefaultPolicy/Resource'),
    reason:
      'The LambdaInvoke task grants lambda:InvokeFunction on the Finalize function and its versions and aliases (`arn:*`): that one function, however it is qualified.',
  },

  // — CDK's own deployment handler (s3-deployment), run by CloudFormation while deploying —
  {
    rule: 'AwsSolutions-IAM4',
    items: /^Policy::arn:<AWS::Partition>:iam::aws:policy\/service-role\/AWSLambdaBasicExecutionRole$/,
    where: bucketDeployment('ServiceRole/Resource'),
    reason:
      "The BucketDeployment handler's role is made by aws-cdk-lib, with AWS's basic execution policy (its logs); no prop of BucketDeployment replaces it. It runs only while CloudFormation deploys the console's and the reference page's files.",
  },
  {
    rule: 'AwsSolutions-IAM5',
    items: nagItem(
      String.raw`^(Action::s3:(GetObject|GetBucket|List|DeleteObject|Abort)\*|Resource::<(ConsoleFiles|ApiDocsFiles)[0-9A-F]{8}\.Arn>/\*|Resource::arn:<AWS::Partition>:s3:::cdk-[a-z0-9]+-assets-{account}-{region}/\*)$`,
    ),
    where: bucketDeployment('ServiceRole/DefaultPolicy/Resource'),
    reason:
      "aws-cdk-lib's grants for the BucketDeployment handler: read of the CDK assets bucket (the zipped builds) and read-write of the two buckets it fills, the console's files and the reference page's files. No grant reaches the table or the outputs bucket.",
  },
  {
    rule: 'AwsSolutions-L1',
    where: bucketDeployment('Resource'),
    reason:
      "The BucketDeployment handler's runtime (Python, with the AWS CLI as a layer) is chosen by aws-cdk-lib and moves with it; BucketDeployment has no prop for it. Keep aws-cdk-lib current.",
  },

  // — The reference page (infra/constructs/api-docs.ts) —
  {
    rule: 'AwsSolutions-IAM5',
    items: /^Resource::<[^>]*ApiDocsFiles[^>]*>\/\*$/,
    where: inside(ApiDocs, 'ReadRole/DefaultPolicy/Resource'),
    reason:
      "API Gateway's role reads the object a request names (GET /docs/{file}) from a bucket that holds only the reference page's public files: s3:GetObject, nothing else, on that bucket.",
  },

  // — The console's CloudFront distribution (infra/constructs/console-site.ts) —
  {
    rule: 'AwsSolutions-CFR4',
    where: inside(ConsoleSite, 'Distribution/Resource'),
    reason:
      "Without a domain of its own the console is served on CloudFront's default certificate (*.cloudfront.net), whose security policy is fixed at TLSv1 (TLS 1.0 and 1.1 still accepted) and cannot be raised. ConsoleSite's customDomain (a name and its ACM certificate in us-east-1) sets the minimum to TLS 1.2 (TLSv1.2_2021), which removes this finding.",
  },
  {
    rule: 'AwsSolutions-CFR1',
    where: inside(ConsoleSite, 'Distribution/Resource'),
    reason:
      "Account owners use the console, and the API through it, from wherever they are: no country is excluded by the service. A legal obligation to exclude some would be CloudFront's geoRestriction (and the API's own WAF), not this default.",
  },
  {
    rule: 'AwsSolutions-CFR2',
    where: inside(ConsoleSite, 'Distribution/Resource'),
    reason:
      "A CloudFront web ACL must be created in us-east-1, outside this stack's region: ConsoleSite takes its ARN (webAclArn) when the deployer has one. Behind CloudFront the API keeps its own regional web ACL (CDK context prognoz:waf), which sees CloudFront's addresses for requests that come through the console.",
  },

  // — The owners' sign-in (infra/constructs/owner-sign-in.ts) —
  {
    rule: 'AwsSolutions-COG1',
    where: inside(OwnerSignIn, 'Owners/Resource'),
    reason:
      "The password policy asks for 12 characters (cdk-nag asks for 8) with a lowercase letter and a digit, and not for an uppercase letter or a symbol: NIST SP 800-63B (5.1.1.2) advises against composition rules, which add little strength and push people to predictable patterns; length and a check against leaked passwords do (the Plus plan's threat protection).",
  },
  {
    rule: 'AwsSolutions-COG2',
    where: inside(OwnerSignIn, 'Owners/Resource'),
    reason:
      'MFA (TOTP) is optional: the console cannot yet set up or answer an MFA challenge, so requiring it would lock every owner out.',
    fix: 'Teach the console the MFA_SETUP and SOFTWARE_TOKEN_MFA challenges (AssociateSoftwareToken, VerifySoftwareToken, RespondToAuthChallenge), then set mfa: Mfa.REQUIRED in OwnerSignIn.',
  },

  // — The API (infra/constructs/prediction-api.ts) —
  {
    rule: 'AwsSolutions-COG4',
    where: inside(PredictionApi),
    reason:
      "The API's callers present API tokens, which no Cognito authorizer can verify: the routes are behind a REQUEST Lambda authorizer that checks an API token or an owner's access token from the owners' Cognito pool (verified with aws-jwt-verify against the pool's issuer and the console's client). The open methods are the ones AwsSolutions-APIG4's entries list.",
  },
  {
    rule: 'AwsSolutions-APIG4',
    where: apiMethods(
      'the fallback ANY methods, the public routes (isPublicRoute) and the reference page (/docs)',
      (method) =>
        method.httpMethod === 'ANY' ||
        isDocsPath(method.resource.path) ||
        ROUTES.some(
          (route) => isPublicRoute(route) && route.path === method.resource.path && route.method === method.httpMethod,
        ),
    ),
    reason:
      "Open by design (interface: Routes): the ANY methods answer a method or path the API does not have with 404/405 in the API's error shape; an event stream's URL carries its own signed key, checked by its handler; the OpenAPI document and the reference page are public, as API references are.",
  },
  {
    rule: 'AwsSolutions-APIG2',
    where: inside(PredictionApi, 'Api/Resource'),
    reason:
      "Each handler validates its request with the zod schemas the OpenAPI document is generated from, and answers a bad one in the API's error shape (400 with a code and a message naming the field). An API Gateway validator would keep a second copy of those schemas and answer in its own shape.",
  },
  {
    rule: 'AwsSolutions-APIG3',
    where: inside(PredictionApi, 'Api/DeploymentStage.prod/Resource'),
    reason:
      'The web ACL with the per-address rate rule is opt-in (CDK context prognoz:waf): it costs about $5 a month for the ACL, $1 per rule and $0.60 per million requests. A production deployment should turn it on, which removes this finding.',
  },
  {
    rule: 'AwsSolutions-IAM4',
    items: /^Policy::arn:<AWS::Partition>:iam::aws:policy\/service-role\/AmazonAPIGatewayPushToCloudWatchLogs$/,
    where: inside(PredictionApi, 'Api/CloudWatchRole/Resource'),
    reason:
      "The role API Gateway itself uses, account-wide, to write every API's logs: AWS's managed policy for it is the documented one, and its log groups are named by API Gateway at run time (API-Gateway-Execution-Logs_<api id>/<stage>), so an inline policy would still name them with '*'.",
  },

  // — The models' fleets (infra/constructs/fleet-capacity.ts, fleet-task.ts) —
  {
    rule: 'AwsSolutions-AS3',
    where: inside(FleetCapacity, 'Capacity/ASG'),
    reason:
      "ECS's capacity provider launches and terminates the fleet's instances as its tasks come and go, down to none: a notification per launch and termination would report routine scaling, dozens of times a day. The service's alarms and dashboard watch the queues and the workflows; the group's activity history keeps every scaling event.",
  },
  {
    rule: 'AwsSolutions-ECS2',
    where: inside(FleetTask, 'Task/Resource'),
    reason:
      "The containers' environment holds configuration only (model id, ports, the inputs folder, the drain time, CUDA capabilities), no secret: the worker's AWS access comes from the task role, and the model container gets no credential at all.",
  },
  {
    rule: 'AwsSolutions-IAM5',
    items: /^Action::ecs:Submit\*$/,
    where: inside(FleetCapacity, 'InstanceRole/DefaultPolicy/Resource'),
    reason:
      "aws-cdk-lib's container-instance policy: ecs:Submit* (the agent's container, task and attachment state changes) on the fleet's own cluster only.",
  },
  {
    rule: 'AwsSolutions-IAM5',
    items: /^Resource::\*$/,
    where: allOf(
      inside(FleetCapacity, 'InstanceRole/DefaultPolicy/Resource'),
      wildcardResourceOnlyFor([
        'ecs:Poll',
        'ecs:StartTelemetrySession',
        'ecs:DiscoverPollEndpoint',
        'ecr:GetAuthorizationToken',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
      ]),
    ),
    reason:
      "aws-cdk-lib's container-instance policy: ecs:Poll and ecs:StartTelemetrySession (limited to the fleet's cluster by a condition), ecs:DiscoverPollEndpoint and ecr:GetAuthorizationToken have no resource-level permissions. logs:CreateLogStream and logs:PutLogEvents on `*` let an instance write to any log group, which it does not need: the tasks log through their execution role.",
    fix: "Drop the two logs actions from the instance role's policy (aws-cdk-lib adds them in Cluster.addAsgCapacityProvider; an override of that statement in infra/constructs/fleet-capacity.ts), then from this entry's list.",
  },
  {
    rule: 'AwsSolutions-IAM5',
    items: /^Resource::\*$/,
    where: allOf(
      inside(FleetTask, 'Task/ExecutionRole/DefaultPolicy/Resource'),
      wildcardResourceOnlyFor(['ecr:GetAuthorizationToken']),
    ),
    reason:
      'The task execution role pulls the images: ecr:GetAuthorizationToken has no resource-level permission; the pulls themselves are granted on the CDK assets repository only.',
  },
  {
    rule: 'AwsSolutions-IAM5',
    items: nagItem(String.raw`^Resource::arn:<AWS::Partition>:ecs:{region}:{account}:task/<[^>]+>/\*$`),
    where: fleetTaskPolicy,
    reason:
      "The worker protects its own task from scale-in while it runs a prediction (ecs:UpdateTaskProtection): task ids exist only at run time, so the grant names the fleet's own cluster's tasks.",
  },

  // — The network (infra/stack.ts) —
];
