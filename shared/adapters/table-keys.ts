/** Every key format of the single table lives here (DESIGN §3). */
export const TABLE_KEY = { partition: 'pk', sort: 'sk' } as const;
export const OWNER_INDEX = { name: 'by-owner', partition: 'gsi1pk', sort: 'gsi1sk' } as const;

export const predictionKey = (id: string) => ({ pk: `PREDICTION#${id}`, sk: 'PREDICTION' });
export const accountKey = (id: string) => ({ pk: `ACCOUNT#${id}`, sk: 'ACCOUNT' });
export const tokenKey = (tokenHash: string) => ({ pk: `TOKEN#${tokenHash}`, sk: 'TOKEN' });
/** An account's spend in one calendar month (`2026-11`). */
export const spendKey = (account: string, month: string) => ({ pk: `ACCOUNT#${account}`, sk: `SPEND#${month}` });
export const ownerIndexKey = (owner: string, createdAt: string) => ({ gsi1pk: `ACCOUNT#${owner}`, gsi1sk: createdAt });
