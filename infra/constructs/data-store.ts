import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership, type IBucket } from 'aws-cdk-lib/aws-s3';
import { S3_SERVER_ACCESS_LOGS_USE_BUCKET_POLICY } from 'aws-cdk-lib/cx-api';
import { AttributeType, Billing, ProjectionType, TableEncryptionV2, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import {
  DELIVERY_INDEX,
  LEGACY_OWNER_INDEX_NAME,
  OWNER_INDEX,
  SWEEP_INDEX,
  TABLE_KEY,
} from '../../shared/adapters/table-keys.ts';

export interface DataStoreProps {
  /** Keep the table and bucket when the stack is deleted. Default: true. */
  readonly retain?: boolean;
  /** Days large outputs and uploaded files are kept in the bucket. Default: 30. */
  readonly outputRetentionDays?: number;
  /**
   * Keep the owner index of a stack deployed before the index held keys alone, beside the new
   * one: the first of the two deploys of such an upgrade (CloudFormation adds or removes one
   * index per update). Default: false.
   */
  readonly keepLegacyOwnerIndex?: boolean;
}

/** Days access logs are kept: a year of who read or wrote what, for an investigation. */
const ACCESS_LOG_RETENTION_DAYS = 365;

/**
 * Lets a function read objects of a bucket: s3:GetObject alone (reads and presigned GETs), where
 * `bucket.grantRead` adds s3:GetObject*, s3:GetBucket* and s3:List* (tags, ACLs, versions, listings).
 * Without s3:ListBucket, S3 answers a missing key with 403 (AccessDenied), not 404 (NoSuchKey).
 */
export const grantObjectRead = (bucket: IBucket, grantee: IGrantable, keys = '*'): Grant =>
  Grant.addToPrincipal({ grantee, actions: ['s3:GetObject'], resourceArns: [bucket.arnForObjects(keys)] });

/**
 * The single table (architecture: Data): predictions, accounts, tokens, keyed as
 * shared/adapters/table-keys.ts says.
 */
export class DataStore extends Construct {
  public readonly table: TableV2;
  /**
   * Outputs too large for the prediction's table item (they never travel through the workflow),
   * and uploaded files (`files/…`): one lifecycle rule expires every object, whatever its prefix.
   */
  public readonly bucket: Bucket;
  /**
   * The stack's access logs: S3 server access logs (each bucket under a prefix of its own) and
   * CloudFront's standard logs, which are written with ACLs, so ACLs stay enabled (bucket owner
   * preferred: the logs are the stack's). Any bucket may log here with `serverAccessLogsBucket`.
   */
  public readonly accessLogs: Bucket;

  constructor(scope: Construct, id: string, props: DataStoreProps = {}) {
    super(scope, id);
    // S3 may write access logs here by the bucket policy AWS recommends, not by the log-delivery ACL.
    this.node.setContext(S3_SERVER_ACCESS_LOGS_USE_BUCKET_POLICY, true);
    const removal = props.retain === false ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;
    const retentionDays = props.outputRetentionDays ?? 30;
    if (!Number.isInteger(retentionDays) || retentionDays < 1)
      throw new Error('outputRetentionDays must be a whole number of days ≥ 1');
    this.accessLogs = new Bucket(this, 'AccessLogs', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      enforceSSL: true,
      removalPolicy: removal,
      lifecycleRules: [{ expiration: Duration.days(ACCESS_LOG_RETENTION_DAYS) }],
    });
    this.bucket = new Bucket(this, 'Outputs', {
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: 'outputs/',
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      versioned: false,
      removalPolicy: removal,
      lifecycleRules: [
        { expiration: Duration.days(retentionDays), abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
    });
    this.table = new TableV2(this, 'Table', {
      partitionKey: { name: TABLE_KEY.partition, type: AttributeType.STRING },
      sortKey: { name: TABLE_KEY.sort, type: AttributeType.STRING },
      billing: Billing.onDemand(),
      encryption: TableEncryptionV2.awsManagedKey(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: 'expires_at',
      removalPolicy: removal,
      globalSecondaryIndexes: [
        {
          indexName: OWNER_INDEX.name,
          partitionKey: { name: OWNER_INDEX.partition, type: AttributeType.STRING },
          sortKey: { name: OWNER_INDEX.sort, type: AttributeType.STRING },
          projectionType: ProjectionType.INCLUDE,
          nonKeyAttributes: [...OWNER_INDEX.projected],
        },
        ...(props.keepLegacyOwnerIndex === true
          ? [
              {
                indexName: LEGACY_OWNER_INDEX_NAME,
                partitionKey: { name: OWNER_INDEX.partition, type: AttributeType.STRING },
                sortKey: { name: OWNER_INDEX.sort, type: AttributeType.STRING },
              },
            ]
          : []),
        {
          // Sparse: only predictions that may still owe something carry these attributes.
          indexName: SWEEP_INDEX.name,
          partitionKey: { name: SWEEP_INDEX.partition, type: AttributeType.STRING },
          sortKey: { name: SWEEP_INDEX.sort, type: AttributeType.NUMBER },
          projectionType: ProjectionType.KEYS_ONLY,
        },
        {
          // Sparse: only webhook delivery attempts carry these attributes; small items, listed whole.
          indexName: DELIVERY_INDEX.name,
          partitionKey: { name: DELIVERY_INDEX.partition, type: AttributeType.STRING },
          sortKey: { name: DELIVERY_INDEX.sort, type: AttributeType.STRING },
        },
      ],
    });
  }
}
