import { App, Stack } from 'aws-cdk-lib';
import { MockIntegration, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { UserPool } from 'aws-cdk-lib/aws-cognito';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../infra/app.ts';
import { ConsoleSite } from '../../infra/constructs/console-site.ts';
import { CONSOLE_CONFIG_PATH, type ConsoleConfig } from '../../shared/api/console-site.ts';

// Its own folder, removed after: the deployments' AWS CLI layer alone stages 22 MB there.
const outdir = mkdtempSync(path.join(tmpdir(), 'prognoz-console-test-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));
const stack = new Stack(new App({ outdir }), 'Console', { env: { region: 'eu-central-1' } });
const api = new RestApi(stack, 'Api', { cloudWatchRole: false, deployOptions: { stageName: 'prod' } });
api.root.addResource('api').addMethod('GET', new MockIntegration());
const client = new UserPool(stack, 'Owners').addClient('Console');
const site = new ConsoleSite(stack, 'Site', { api, signInClient: client });
const template = Template.fromStack(stack);

type Resource = { Type: string; Properties: Record<string, unknown>; DependsOn?: string[] };
const resources = (type: string) => Object.entries(template.findResources(type)) as [string, Resource][];
const only = (type: string): [string, Resource] => {
  const found = resources(type);
  expect(found).toHaveLength(1);
  return found[0] as [string, Resource];
};
const [bucketId] = only('AWS::S3::Bucket');
const [distributionId, distribution] = only('AWS::CloudFront::Distribution');
interface Behavior {
  PathPattern?: string;
  TargetOriginId: string;
  [key: string]: unknown;
}
const config = distribution.Properties.DistributionConfig as {
  DefaultCacheBehavior: Behavior;
  CacheBehaviors: Behavior[];
  Origins: { Id: string; [key: string]: unknown }[];
  [key: string]: unknown;
};

describe('the console site', () => {
  it('keeps the build in a private bucket that only CloudFront reads, through origin access control', () => {
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
    template.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Delete' });
    const [oacId] = only('AWS::CloudFront::OriginAccessControl');
    template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: Match.objectLike({ OriginAccessControlOriginType: 's3', SigningBehavior: 'always' }),
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({
            Effect: 'Allow',
            Action: 's3:GetObject',
            Principal: { Service: 'cloudfront.amazonaws.com' },
          }),
        ]),
      },
    });
    const bucketOrigin = config.Origins.find((origin) => origin.Id === config.DefaultCacheBehavior.TargetOriginId);
    expect(bucketOrigin?.OriginAccessControlId).toEqual({ 'Fn::GetAtt': [oacId, 'Id'] });
    expect(bucketOrigin?.DomainName).toEqual({ 'Fn::GetAtt': [bucketId, 'RegionalDomainName'] });
  });

  it('serves the pages with a CSP of its own files, the API beside them and the region’s sign-in endpoint, over HTTPS', () => {
    const [policyId, policy] = only('AWS::CloudFront::ResponseHeadersPolicy');
    expect(config.DefaultCacheBehavior.ResponseHeadersPolicyId).toEqual({ Ref: policyId });
    expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect(config.DefaultCacheBehavior.Compress).toBe(true);
    expect(config.DefaultRootObject).toBe('index.html');
    // A distribution-wide error page would answer the API's 403s and 404s with the console too.
    expect(config.CustomErrorResponses).toBeUndefined();
    const headers = (
      policy.Properties.ResponseHeadersPolicyConfig as {
        SecurityHeadersConfig: Record<string, Record<string, unknown>>;
      }
    ).SecurityHeadersConfig;
    const csp = headers.ContentSecurityPolicy?.ContentSecurityPolicy as string;
    expect(headers.ContentSecurityPolicy?.Override).toBe(true);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("connect-src 'self' https://cognito-idp.eu-central-1.amazonaws.com");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(headers.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
    expect(headers.ContentTypeOptions).toEqual({ Override: true });
    expect(headers.ReferrerPolicy).toEqual({ ReferrerPolicy: 'same-origin', Override: true });
    expect(headers.StrictTransportSecurity).toEqual({
      AccessControlMaxAgeSec: 63_072_000,
      IncludeSubdomains: true,
      Override: true,
    });
  });

  it('answers every console page with index.html and leaves any other path to S3', () => {
    const [functionId, fn] = only('AWS::CloudFront::Function');
    expect(fn.Properties.FunctionConfig).toMatchObject({ Runtime: 'cloudfront-js-2.0' });
    expect(config.DefaultCacheBehavior.FunctionAssociations).toEqual([
      { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [functionId, 'FunctionARN'] } },
    ]);
    const handler = runInNewContext(`${fn.Properties.FunctionCode as string}\nhandler`) as (event: {
      request: { uri: string };
    }) => { uri: string };
    const uriOf = (uri: string) => handler({ request: { uri } }).uri;
    for (const page of ['/', '/predictions/p_1', '/models', '/models/prognoz/echo', '/account', '/account/webhooks'])
      expect(uriOf(page), page).toBe('/index.html');
    for (const file of [
      '/assets/app-X.js',
      CONSOLE_CONFIG_PATH,
      '/favicon.ico',
      '/index.html',
      '/models/prognoz',
      '/predictions/',
      '/account/tokens',
    ]) {
      expect(uriOf(file), file).toBe(file);
    }
  });

  it('sends /api/* and /docs* to the API’s stage, uncached, with every method and the caller’s headers but Host', () => {
    const [stageId] =
      resources('AWS::ApiGateway::Stage').find(([, stage]) => stage.Properties.StageName === 'prod') ?? [];
    expect(stageId).toBeDefined();
    const byPath = new Map(config.CacheBehaviors.map((behavior) => [behavior.PathPattern, behavior]));
    expect([...byPath.keys()].sort()).toEqual(['/api/*', '/docs*']);
    for (const behavior of byPath.values()) {
      expect(behavior).toMatchObject({
        CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad',
        OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac',
        AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
        ViewerProtocolPolicy: 'https-only',
      });
      // The console's CSP is for its pages; the API's answers keep their own headers.
      expect(behavior.ResponseHeadersPolicyId).toBeUndefined();
      expect(behavior.FunctionAssociations).toBeUndefined();
      const origin = config.Origins.find((candidate) => candidate.Id === behavior.TargetOriginId);
      expect(origin?.OriginPath).toEqual({ 'Fn::Join': ['', ['/', { Ref: stageId }]] });
      expect(JSON.stringify(origin?.DomainName)).toMatch(
        /^\{"Fn::Join":\["",\[\{"Ref":"Api\w+"\},"\.execute-api\.eu-central-1\.",\{"Ref":"AWS::URLSuffix"\}\]\]\}$/,
      );
      expect(origin?.CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: 'https-only', OriginReadTimeout: 60 });
    }
  });

  it('deploys the hashed assets cached for good and kept, and the page and its configuration revalidated on each load', () => {
    const deployments = resources('Custom::CDKBucketDeployment');
    expect(deployments).toHaveLength(3);
    for (const [, deployment] of deployments) {
      expect(deployment.Properties.DestinationBucketName).toEqual({ Ref: bucketId });
      expect(deployment.Properties.Prune).toBe(false);
    }
    const cacheControlOf = ([, deployment]: [string, Resource]) =>
      (deployment.Properties.SystemMetadata as Record<string, string>)['cache-control'];
    const [assets, page, configuration] = ['DeployAssets', 'DeployPage', 'DeployConfig'].map((name) => {
      const found = deployments.find(([id]) => id.startsWith(`Site${name}`));
      expect(found, name).toBeDefined();
      return found as [string, Resource];
    }) as [[string, Resource], [string, Resource], [string, Resource]];

    expect(cacheControlOf(assets)).toBe('public, max-age=31536000, immutable');
    expect(assets[1].Properties.Exclude).toEqual(['*']);
    const assetNames = assets[1].Properties.Include as string[];
    expect(assetNames.length).toBeGreaterThanOrEqual(2);
    for (const name of assetNames) expect(name).toMatch(/^assets\/app-\w+\.(js|css)$/);

    expect(cacheControlOf(page)).toBe('no-cache');
    expect(page[1].Properties.Include).toEqual(['index.html']);
    // The page comes after the files it names.
    expect(page[1].DependsOn).toContain(assets[0]);

    expect(cacheControlOf(configuration)).toBe('no-cache');
    expect(configuration[1].Properties.Include).toBeUndefined();
    // The console's client id is filled in at deploy time, where the file has a marker.
    const [key] = configuration[1].Properties.SourceObjectKeys as string[];
    const staged = JSON.parse(
      readFileSync(path.join(outdir, `asset.${String(key).replace(/\.zip$/, '')}`, CONSOLE_CONFIG_PATH), 'utf8'),
    ) as ConsoleConfig;
    const markers = configuration[1].Properties.SourceMarkers as Record<string, unknown>[];
    expect(markers).toEqual([{ [staged.signIn.clientId]: stack.resolve(client.userPoolClientId) as unknown }]);
    expect(staged.signIn.endpoint).toBe('https://cognito-idp.eu-central-1.amazonaws.com/');
  });

  it('is reached at the distribution’s domain', () => {
    expect(stack.resolve(site.url)).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }, '/']],
    });
  });
});

describe('the stack', () => {
  it('outputs the console’s URL', () => {
    const whole = Template.fromStack(buildApp({ bundle: false }).stack);
    whole.hasOutput('ConsoleUrl', {
      Value: {
        'Fn::Join': [
          '',
          ['https://', { 'Fn::GetAtt': [Match.stringLikeRegexp('^ConsoleDistribution'), 'DomainName'] }, '/'],
        ],
      },
    });
  });
});
