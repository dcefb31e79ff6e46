import { App, Stack } from 'aws-cdk-lib';
import { MockIntegration, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiDocs } from '../../infra/constructs/api-docs.ts';
import { DOCS_FILES } from '../../shared/api/docs-site.ts';

// Its own folder, removed after: the deployment's AWS CLI layer alone stages 22 MB there.
const outdir = mkdtempSync(path.join(tmpdir(), 'prognoz-docs-test-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));
const stack = new Stack(new App({ outdir }), 'Docs');
const api = new RestApi(stack, 'Api', { cloudWatchRole: false });
api.root.addResource('api').addMethod('GET', new MockIntegration());
new ApiDocs(stack, 'Docs', { api, unmatched: new MockIntegration() });
const template = Template.fromStack(stack);
type Resource = { Type: string; Properties: Record<string, unknown> };
const resources = (type: string) => Object.values(template.findResources(type)) as Resource[];
const bucketRef = { Ref: Object.keys(template.findResources('AWS::S3::Bucket'))[0] };

describe('the API reference page', () => {
  it('lives in a private bucket, reached over TLS only', () => {
    template.resourceCountIs('AWS::S3::Bucket', 1);
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('deploys the files as one asset outside the template, with the extensions S3 takes their Content-Types from', () => {
    const deployments = resources('Custom::CDKBucketDeployment');
    expect(deployments).toHaveLength(1);
    const [deployment] = deployments;
    expect(deployment?.Properties.DestinationBucketName).toEqual(bucketRef);
    expect((deployment?.Properties.SourceObjectKeys as unknown[])[0]).toMatch(/^[0-9a-f]{64}\.zip$/);
    for (const file of DOCS_FILES)
      expect(file.name).toMatch(file.contentType.startsWith('text/html') ? /\.html$/ : /\.js$/);
    // The renderer's 4 MB stay out of the template.
    expect(JSON.stringify(template.toJSON()).length).toBeLessThan(100_000);
  });

  it('answers GET /docs and GET /docs/{file} from the bucket, without a token', () => {
    const [docs] = resources('AWS::ApiGateway::Resource').filter((r) => r.Properties.PathPart === 'docs');
    expect(docs).toBeDefined();
    template.hasResourceProperties('AWS::ApiGateway::Resource', { PathPart: '{file}' });
    const gets = resources('AWS::ApiGateway::Method').filter(
      (m) => m.Properties.HttpMethod === 'GET' && (m.Properties.Integration as { Type: string }).Type === 'AWS',
    );
    expect(gets).toHaveLength(2);
    const keys = gets.map((m) => {
      const integration = m.Properties.Integration as {
        IntegrationHttpMethod: string;
        Uri: unknown;
        RequestParameters: Record<string, string>;
      };
      expect(m.Properties.AuthorizationType).toBe('NONE');
      expect(integration.IntegrationHttpMethod).toBe('GET');
      expect(JSON.stringify(integration.Uri)).toMatch(/:s3:path\/"?.*\/\{key\}/);
      expect(JSON.stringify(integration.Uri)).toContain(JSON.stringify(bucketRef));
      return integration.RequestParameters['integration.request.path.key'];
    });
    expect(keys.sort()).toEqual(["'index.html'", 'method.request.path.file']);
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'GET',
      RequestParameters: { 'method.request.path.file': true },
      Integration: Match.objectLike({
        IntegrationResponses: Match.arrayWith([
          Match.objectLike({
            StatusCode: '200',
            ResponseParameters: Match.objectLike({
              'method.response.header.Content-Type': 'integration.response.header.Content-Type',
              'method.response.header.X-Content-Type-Options': "'nosniff'",
            }),
          }),
          Match.objectLike({
            SelectionPattern: '4\\d{2}',
            StatusCode: '404',
            ResponseTemplates: {
              'application/json': Match.stringLikeRegexp(
                '"code":"route_not_found".*"request_id":"\\$context.requestId"',
              ),
            },
          }),
        ]),
      }),
    });
    // The other methods go where the API sends every request it has no route for.
    expect(resources('AWS::ApiGateway::Method').filter((m) => m.Properties.HttpMethod === 'ANY')).toHaveLength(2);
  });

  it('reads the bucket through a role that may only get its objects', () => {
    const [role] = Object.entries(
      template.findResources('AWS::IAM::Role', {
        Properties: {
          AssumeRolePolicyDocument: {
            Statement: [Match.objectLike({ Principal: { Service: 'apigateway.amazonaws.com' } })],
          },
        },
      }),
    );
    expect(role).toBeDefined();
    const [roleId] = role ?? [];
    for (const method of resources('AWS::ApiGateway::Method').filter(
      (m) => m.Properties.HttpMethod === 'GET' && JSON.stringify(m).includes(':s3:path/'),
    )) {
      expect((method.Properties.Integration as { Credentials: unknown }).Credentials).toEqual({
        'Fn::GetAtt': [roleId, 'Arn'],
      });
    }
    const statements = resources('AWS::IAM::Policy')
      .filter((policy) => (policy.Properties.Roles as { Ref?: string }[]).some((attached) => attached.Ref === roleId))
      .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: unknown[] }).Statement);
    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: 's3:GetObject',
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketRef.Ref, 'Arn'] }, '/*']] },
      },
    ]);
  });
});
