import { Duration, FileSystem, Names, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  OriginRequestPolicy,
  ResponseHeadersPolicy,
  S3OriginAccessControl,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
  type BehaviorOptions,
  type ResponseSecurityHeadersBehavior,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { IUserPoolClient } from 'aws-cdk-lib/aws-cognito';
import { BlockPublicAccess, Bucket, BucketEncryption, type IBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import {
  CONSOLE_CONFIG_PATH,
  CONSOLE_PAGE_PATTERN,
  cognitoEndpointOf,
  cognitoOriginOf,
  consoleSecurityHeaders,
  type ConsoleConfig,
} from '../../shared/api/console-site.ts';
import { buildConsole, type ConsoleFile } from '../../web/build.ts';

export interface ConsoleSiteProps {
  /** The prediction API, served beside the console under /api/ and /docs. */
  readonly api: RestApi;
  /** The console's app client in the owners' pool. */
  readonly signInClient: IUserPoolClient;
  /**
   * The console's own address. Only with a certificate of its own can viewers be held to TLS 1.2
   * or later: CloudFront's default certificate (*.cloudfront.net) also accepts TLS 1.0 and 1.1, and
   * its security policy cannot be raised. Default: none, the distribution's cloudfront.net domain.
   */
  readonly customDomain?: ConsoleDomain;
  /** A web ACL of AWS WAF in front of the console and the API through it (scope CLOUDFRONT, in us-east-1). Default: none. */
  readonly webAclArn?: string;
  /** Where CloudFront's standard logs and the build bucket's server access logs go (DataStore's accessLogs). Default: none. */
  readonly accessLogs?: IBucket;
}

export interface ConsoleDomain {
  /** E.g. console.example.com; its DNS record (a CNAME or alias to the distribution) is the deployer's. */
  readonly domainName: string;
  /** An ACM certificate for the name, in us-east-1 (where CloudFront reads certificates from). */
  readonly certificateArn: string;
}

/** The page every console address is answered with; the console routes on the address itself. */
const PAGE = 'index.html';

/** The paths CloudFront sends to the API instead of the bucket. */
const API_PATH_PATTERNS = ['/api/*', '/docs*'] as const;

/**
 * Rewrites a console page's address to its one page and leaves any other path alone, so a missing
 * file is S3's 403, not the page. The pattern is the shared one, written out as a literal.
 */
const pageRewriteCode = (): string => `var PAGE = /${CONSOLE_PAGE_PATTERN.source}/${CONSOLE_PAGE_PATTERN.flags};
function handler(event) {
  var request = event.request;
  if (PAGE.test(request.uri)) request.uri = '/${PAGE}';
  return request;
}
`;

const enumValue = <T extends string>(values: Record<string, T>, value: string, header: string): T => {
  const found = Object.values(values).find((candidate) => candidate === value);
  if (found === undefined) throw new Error(`CloudFront cannot send ${header}: ${value}`);
  return found;
};

/**
 * The console's security headers (shared/api/console-site.ts) as CloudFront's, plus HSTS. It fails
 * the synth on a header it does not know, rather than leave that header out on AWS.
 */
const securityHeadersOf = (signInOrigin: string): ResponseSecurityHeadersBehavior => {
  const {
    'content-security-policy': contentSecurityPolicy,
    'x-frame-options': frameOption,
    'x-content-type-options': contentTypeOption,
    'referrer-policy': referrerPolicy,
    ...others
  } = consoleSecurityHeaders(signInOrigin);
  const unknown = Object.keys(others);
  if (unknown.length > 0) throw new Error(`the console site does not send ${unknown.join(', ')} on AWS`);
  if (!contentSecurityPolicy || !frameOption || !referrerPolicy || contentTypeOption !== 'nosniff') {
    throw new Error("the console's security headers are not the ones CloudFront sends");
  }
  return {
    contentSecurityPolicy: { contentSecurityPolicy, override: true },
    frameOptions: { frameOption: enumValue(HeadersFrameOption, frameOption, 'X-Frame-Options'), override: true },
    contentTypeOptions: { override: true },
    referrerPolicy: {
      referrerPolicy: enumValue(HeadersReferrerPolicy, referrerPolicy, 'Referrer-Policy'),
      override: true,
    },
    strictTransportSecurity: { accessControlMaxAge: Duration.days(730), includeSubdomains: true, override: true },
  };
};

const namesOf = (files: readonly ConsoleFile[]): string[] => files.map((file) => file.name);

/**
 * The web console (web/console) on AWS: its build in a private bucket behind CloudFront, with the
 * API as the distribution's second origin, so the console calls it on its own origin (no CORS)
 * and its CSP can say `connect-src 'self'`.
 */
export class ConsoleSite extends Construct {
  public readonly distribution: Distribution;
  /** The console's address. */
  public readonly url: string;

  constructor(scope: Construct, id: string, props: ConsoleSiteProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const bucket = new Bucket(this, 'Files', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      // Only the console's build, deployed again with the stack: nothing is lost with it.
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
      // Who wrote the console's code (its deployments) and who read it (CloudFront only).
      ...(props.accessLogs
        ? { serverAccessLogsBucket: props.accessLogs, serverAccessLogsPrefix: 'console-files/' }
        : {}),
    });
    this.deploy(bucket, props.signInClient);

    // CloudFront's names are the account's, in every region: the stack's region keeps two apart.
    const globalName = (maxLength: number) =>
      `${stack.region}-${Names.uniqueResourceName(this, { maxLength: maxLength - 15 })}`;
    const headers = new ResponseHeadersPolicy(this, 'Headers', {
      responseHeadersPolicyName: globalName(128),
      comment: 'prognoz console pages: CSP, no framing, HSTS',
      securityHeadersBehavior: securityHeadersOf(cognitoOriginOf(stack.region)),
    });
    const pages = new CloudFrontFunction(this, 'Pages', {
      runtime: FunctionRuntime.JS_2_0,
      code: FunctionCode.fromInline(pageRewriteCode()),
      comment: 'prognoz console: a page address reads index.html',
    });

    const api = new HttpOrigin(`${props.api.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}`, {
      originPath: `/${props.api.deploymentStage.stageName}`,
      // The most CloudFront allows without a quota increase (up to 180 s with one). A synchronous
      // wait that outlasts it (Request-Timeout: 60 plus the time to create) is a 504 through here,
      // not on the API's own URL. Event streams send a keepalive well within it.
      readTimeout: Duration.seconds(60),
    });
    const toApi: BehaviorOptions = {
      origin: api,
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: AllowedMethods.ALLOW_ALL,
      // Uncached, all the viewer's headers (Authorization included, which CloudFront forwards only
      // when nothing is cached) but Host: API Gateway answers only to its own.
      cachePolicy: CachePolicy.CACHING_DISABLED,
      originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      // The API compresses what it wants to; an event stream must reach the browser as it comes.
      compress: false,
    };

    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'prognoz console and API',
      defaultRootObject: PAGE,
      // No errorResponses: they would rewrite the API's 403s and 404s too.
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(bucket, {
          originAccessControl: new S3OriginAccessControl(this, 'ReadFiles', {
            originAccessControlName: globalName(64),
          }),
        }),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        compress: true,
        responseHeadersPolicy: headers,
        functionAssociations: [{ function: pages, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: Object.fromEntries(API_PATH_PATTERNS.map((pattern) => [pattern, toApi])),
      ...(props.customDomain
        ? {
            domainNames: [props.customDomain.domainName],
            certificate: Certificate.fromCertificateArn(this, 'Certificate', props.customDomain.certificateArn),
            minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
          }
        : {}),
      ...(props.webAclArn ? { webAclId: props.webAclArn } : {}),
      ...(props.accessLogs ? { logBucket: props.accessLogs, logFilePrefix: 'console-cloudfront/' } : {}),
    });
    this.url = `https://${props.customDomain?.domainName ?? this.distribution.distributionDomainName}/`;
  }

  /**
   * The build (made now, into a folder that goes once staged) and the configuration. Hashed assets
   * are cached for good and never pruned, so a page loaded before a deploy still finds its files;
   * the page and the configuration are revalidated on every load.
   */
  private deploy(bucket: Bucket, signInClient: IUserPoolClient): void {
    const folder = FileSystem.mkdtemp('prognoz-console');
    try {
      const build = buildConsole(folder);
      if (!build.files.some((file) => file.name === PAGE && !file.immutable))
        throw new Error(`the console build has no ${PAGE}`);
      const files = Source.asset(folder);
      const assets = new BucketDeployment(this, 'DeployAssets', {
        sources: [files],
        destinationBucket: bucket,
        exclude: ['*'],
        include: namesOf(build.files.filter((file) => file.immutable)),
        cacheControl: [CacheControl.setPublic(), CacheControl.maxAge(Duration.days(365)), CacheControl.immutable()],
        prune: false,
      });
      const page = new BucketDeployment(this, 'DeployPage', {
        sources: [files],
        destinationBucket: bucket,
        exclude: ['*'],
        include: namesOf(build.files.filter((file) => !file.immutable)),
        cacheControl: [CacheControl.noCache()],
        prune: false,
      });
      // The new page only once the files it names are there.
      page.node.addDependency(assets);
    } finally {
      FileSystem.rmrf(folder);
    }

    const config: ConsoleConfig = {
      signIn: { endpoint: cognitoEndpointOf(Stack.of(this).region), clientId: signInClient.userPoolClientId },
    };
    new BucketDeployment(this, 'DeployConfig', {
      sources: [Source.jsonData(CONSOLE_CONFIG_PATH.slice(1), config)],
      destinationBucket: bucket,
      cacheControl: [CacheControl.noCache()],
      prune: false,
    });
  }
}
