import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { AttributeType, Billing, ProjectionType, TableEncryptionV2, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { DELIVERY_INDEX, OWNER_INDEX, SWEEP_INDEX, TABLE_KEY } from '../../shared/adapters/table-keys.ts';

export interface DataStoreProps {
  /** Keep the table and bucket when the stack is deleted. Default: true. */
  readonly retain?: boolean;
  /** Days large outputs and uploaded files are kept in the bucket. Default: 30. */
  readonly outputRetentionDays?: number;
}

/** The single table of DESIGN §3: predictions, accounts, tokens, keyed as shared/adapters/table-keys.ts says. */
export class DataStore extends Construct {
  public readonly table: TableV2;
  /**
   * Outputs too large for the prediction's table item (they never travel through the workflow),
   * and uploaded files (`files/…`): one lifecycle rule expires every object, whatever its prefix.
   */
  public readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: DataStoreProps = {}) {
    super(scope, id);
    const removal = props.retain === false ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;
    const retentionDays = props.outputRetentionDays ?? 30;
    if (!Number.isInteger(retentionDays) || retentionDays < 1)
      throw new Error('outputRetentionDays must be a whole number of days ≥ 1');
    this.bucket = new Bucket(this, 'Outputs', {
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
        },
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
