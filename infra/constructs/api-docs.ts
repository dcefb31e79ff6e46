import { FileSystem, RemovalPolicy } from 'aws-cdk-lib';
import {
  AuthorizationType,
  AwsIntegration,
  type Integration,
  type IResource,
  type RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import { PolicyStatement, Role, ServicePrincipal, type IRole } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, type IBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source, type ISource } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { copyFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { DOCS_FILES, DOCS_PATH, type DocsFile } from '../../shared/api/docs-site.ts';
import { errorTemplate } from './prediction-api.ts';
import { REPO_ROOT } from './prognoz-function.ts';

export interface ApiDocsProps {
  readonly api: RestApi;
  /**
   * Answers the other methods on /docs and /docs/{file}, as on the API's own resources: without
   * it API Gateway answers them with its own 403 "Missing Authentication Token". Default: none.
   */
  readonly unmatched?: Integration;
  /** Where the bucket's server access logs go (DataStore's accessLogs). Default: none. */
  readonly accessLogs?: IBucket;
}

/**
 * The files in one folder, under the names they are served by: Source.asset takes only a folder
 * or a zip, and the renderer is named otherwise in node_modules. The folder goes once staged, as
 * Source.data's does. S3 gets each file's Content-Type from its extension (the CLI's sync guesses it).
 */
const stagedFiles = (files: readonly DocsFile[]): ISource => ({
  bind: (scope, context) => {
    const folder = FileSystem.mkdtemp('prognoz-docs');
    try {
      for (const file of files) {
        const from = path.join(REPO_ROOT, file.source);
        if (!existsSync(from))
          throw new Error(`${file.source} is missing (run npm install): the API reference serves it as ${file.name}`);
        copyFileSync(from, path.join(folder, file.name));
      }
      return Source.asset(folder).bind(scope, context);
    } finally {
      FileSystem.rmrf(folder);
    }
  },
});

/**
 * The API reference page (shared/api/docs-site.ts) on the API itself, read by API Gateway
 * straight from a private bucket: no function runs for it, and it is public like the OpenAPI
 * document it reads.
 */
export class ApiDocs extends Construct {
  public readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: ApiDocsProps) {
    super(scope, id);
    this.bucket = new Bucket(this, 'Files', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      // Nothing here but copies of files in the repository (and node_modules), deployed again
      // with the stack: nothing is lost with it.
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
      ...(props.accessLogs ? { serverAccessLogsBucket: props.accessLogs, serverAccessLogsPrefix: 'api-docs/' } : {}),
    });
    new BucketDeployment(this, 'Deploy', { sources: [stagedFiles(DOCS_FILES)], destinationBucket: this.bucket });

    const role = new Role(this, 'ReadRole', { assumedBy: new ServicePrincipal('apigateway.amazonaws.com') });
    role.addToPolicy(new PolicyStatement({ actions: ['s3:GetObject'], resources: [this.bucket.arnForObjects('*')] }));

    const page = props.api.root.getResource(DOCS_PATH.slice(1)) ?? props.api.root.addResource(DOCS_PATH.slice(1));
    this.serve(page, "'index.html'", role, props.unmatched);
    this.serve(page.addResource('{file}'), 'method.request.path.file', role, props.unmatched);
  }

  /** GET on the resource reads the object `key` names (a static value or a request parameter). */
  private serve(resource: IResource, key: string, role: IRole, unmatched: Integration | undefined): void {
    const integration = new AwsIntegration({
      service: 's3',
      integrationHttpMethod: 'GET',
      path: `${this.bucket.bucketName}/{key}`,
      options: {
        credentialsRole: role,
        requestParameters: { 'integration.request.path.key': key },
        integrationResponses: [
          {
            statusCode: '200',
            responseParameters: {
              'method.response.header.Content-Type': 'integration.response.header.Content-Type',
              'method.response.header.Cache-Control': "'public, max-age=300'",
              'method.response.header.X-Content-Type-Options': "'nosniff'",
            },
          },
          {
            // Without s3:ListBucket, S3 answers a missing key with 403, not 404.
            selectionPattern: '4\\d{2}',
            statusCode: '404',
            responseParameters: { 'method.response.header.Content-Type': "'application/json'" },
            responseTemplates: {
              'application/json': errorTemplate('route_not_found', `no such page under ${DOCS_PATH}`),
            },
          },
          {
            selectionPattern: '5\\d{2}',
            statusCode: '500',
            responseParameters: { 'method.response.header.Content-Type': "'application/json'" },
            responseTemplates: {
              'application/json': errorTemplate('internal_error', 'the API reference could not be read; try again'),
            },
          },
        ],
      },
    });
    const header = (...names: string[]) =>
      Object.fromEntries(names.map((name) => [`method.response.header.${name}`, true]));
    resource.addMethod('GET', integration, {
      authorizationType: AuthorizationType.NONE,
      ...(key.startsWith('method.') ? { requestParameters: { [key]: true } } : {}),
      methodResponses: [
        { statusCode: '200', responseParameters: header('Content-Type', 'Cache-Control', 'X-Content-Type-Options') },
        { statusCode: '404', responseParameters: header('Content-Type') },
        { statusCode: '500', responseParameters: header('Content-Type') },
      ],
    });
    if (unmatched) resource.addMethod('ANY', unmatched, { authorizationType: AuthorizationType.NONE });
  }
}
