import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, TableEncryptionV2, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { OWNER_INDEX, TABLE_KEY } from '../../shared/adapters/table-keys.ts';

export interface DataStoreProps {
  /** Keep the table when the stack is deleted. Default: true. */
  readonly retain?: boolean;
}

/** The single table of DESIGN §3: predictions, accounts, tokens, keyed as shared/adapters/table-keys.ts says. */
export class DataStore extends Construct {
  public readonly table: TableV2;

  constructor(scope: Construct, id: string, props: DataStoreProps = {}) {
    super(scope, id);
    this.table = new TableV2(this, 'Table', {
      partitionKey: { name: TABLE_KEY.partition, type: AttributeType.STRING },
      sortKey: { name: TABLE_KEY.sort, type: AttributeType.STRING },
      billing: Billing.onDemand(),
      encryption: TableEncryptionV2.awsManagedKey(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: 'expires_at',
      removalPolicy: props.retain === false ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      globalSecondaryIndexes: [
        {
          indexName: OWNER_INDEX.name,
          partitionKey: { name: OWNER_INDEX.partition, type: AttributeType.STRING },
          sortKey: { name: OWNER_INDEX.sort, type: AttributeType.STRING },
        },
      ],
    });
  }
}
