import { App, Stack } from 'aws-cdk-lib';
import { MockIntegration, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { UserPool } from 'aws-cdk-lib/aws-cognito';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConsoleSite } from '../../infra/constructs/console-site.ts';
import { DataStore } from '../../infra/constructs/data-store.ts';
import { nagFindings } from '../../infra/nag/checks.ts';

// Its own folder, removed after: the deployments' AWS CLI layer alone stages 22 MB there.
const outdir = mkdtempSync(path.join(tmpdir(), 'prognoz-console-options-test-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));
const stack = new Stack(new App({ outdir }), 'Console', { env: { region: 'eu-central-1' } });
const api = new RestApi(stack, 'Api', { cloudWatchRole: false, deployOptions: { stageName: 'prod' } });
api.root.addResource('api').addMethod('GET', new MockIntegration());
const { accessLogs } = new DataStore(stack, 'Data', { retain: false });
const certificateArn = 'arn:aws:acm:us-east-1:123456789012:certificate/0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d';
const webAclArn =
  'arn:aws:wafv2:us-east-1:123456789012:global/webacl/prognoz-console/0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d';
const site = new ConsoleSite(stack, 'Site', {
  api,
  signInClient: new UserPool(stack, 'Owners').addClient('Console'),
  customDomain: { domainName: 'console.example.com', certificateArn },
  webAclArn,
  accessLogs,
});
const template = Template.fromStack(stack);
const logicalId = (construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as Parameters<Stack['getLogicalId']>[0]);

describe('the console site with its own domain, a web ACL and access logs', () => {
  it('answers on its own name with its certificate, and holds viewers to TLS 1.2 or later', () => {
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        Aliases: ['console.example.com'],
        ViewerCertificate: {
          AcmCertificateArn: certificateArn,
          MinimumProtocolVersion: 'TLSv1.2_2021',
          SslSupportMethod: 'sni-only',
        },
        WebACLId: webAclArn,
      }),
    });
    expect(site.url).toBe('https://console.example.com/');
  });

  it("logs CloudFront's requests and the files bucket's reads and writes to the access-log bucket, which S3 may write to", () => {
    const logBucket = logicalId(accessLogs);
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        Logging: { Bucket: { 'Fn::GetAtt': [logBucket, 'RegionalDomainName'] }, Prefix: 'console-cloudfront/' },
      }),
    });
    template.hasResourceProperties('AWS::S3::Bucket', {
      LoggingConfiguration: { DestinationBucketName: { Ref: logBucket }, LogFilePrefix: 'console-files/' },
    });
    // CloudFront's standard logs are written with ACLs; S3's access logs by the bucket policy.
    template.hasResourceProperties('AWS::S3::Bucket', {
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerPreferred' }] },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: logBucket },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'logging.s3.amazonaws.com' },
            Action: 's3:PutObject',
          }),
        ]),
      },
    });
  });

  it('leaves cdk-nag nothing to say of its distribution or its buckets but the geographic restriction it does not want', () => {
    const findings = nagFindings(stack)
      .filter((finding) => /^(AwsSolutions-(CFR|S)\d+)$/.test(finding.rule))
      .map((finding) => `${finding.rule} ${finding.resource.node.path}`);
    expect(findings).toEqual(['AwsSolutions-CFR1 Console/Site/Distribution/Resource']);
  });
});
