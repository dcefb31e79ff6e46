import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LOCAL_REGION } from '../local/paths.ts';
import { dynamoAccountStore } from '../shared/adapters/account-store.ts';
import { type NewAccount } from '../shared/ports/account-store.ts';
import { asAccountId } from '../shared/domain/ids.ts';
import { generateToken } from '../shared/domain/tokens.ts';

/** An account of its own on a running local runtime, made through the service's own store; returns its token. */
export const createAccount = async (
  runtime: { readonly dynamoEndpoint: string; readonly tableName: string },
  initial: NewAccount,
): Promise<string> => {
  const documents = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: runtime.dynamoEndpoint,
      region: LOCAL_REGION,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  );
  const accounts = dynamoAccountStore(runtime.tableName, documents);
  const account = asAccountId(crypto.randomUUID());
  const token = generateToken();
  await accounts.createAccount(account, Date.now(), initial);
  await accounts.addToken(account, token, Date.now());
  return token;
};

/** Funded and unthrottled: the benchmark measures the service, not its limits. */
export const UNLIMITED_ACCOUNT: NewAccount = {
  balanceKopecks: 10 ** 12,
  monthlyLimitKopecks: null,
  ratePerSecond: 1_000_000,
};
