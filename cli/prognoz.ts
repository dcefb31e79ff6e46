import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { dynamoAccountStore } from '../shared/adapters/account-store.ts';
import { USERNAME, type AccountSummary } from '../shared/ports/account-store.ts';
import { cognitoOwnerPool } from '../shared/adapters/owner-pool.ts';
import { systemClock } from '../shared/domain/clock.ts';
import { asAccountId } from '../shared/domain/ids.ts';
import { formatRoubles, parseRoubles } from '../shared/domain/money.ts';
import { generateToken } from '../shared/domain/tokens.ts';
import { addOwner } from '../shared/use-cases/add-owner.ts';
import { processEnvironment } from '../shared/config/environment.ts';
import { loadModelCatalog } from '../shared/config/model-catalog.ts';
import { deploymentsCommand } from './deployments.ts';
import { examplesCommand } from './examples.ts';
import { resolveTarget } from './target.ts';

/** Enough to refuse a slip of the keyboard; Cognito has the last word. */
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

const USAGE = `prognoz — administer accounts, API tokens and deployments

  npx prognoz accounts create [--username HANDLE] [--name NAME] [--balance ROUBLES] [--monthly-limit ROUBLES]
  npx prognoz accounts show ACCOUNT
  npx prognoz accounts topup ACCOUNT ROUBLES
  npx prognoz accounts set-limit ACCOUNT (ROUBLES | none)
  npx prognoz tokens create ACCOUNT
  npx prognoz tokens list ACCOUNT
  npx prognoz tokens revoke ACCOUNT TOKEN_ID
  npx prognoz owners add ACCOUNT --email EMAIL
  npx prognoz owners list ACCOUNT
  npx prognoz owners add ACCOUNT --email EMAIL --operator   (may resize deployments)
  npx prognoz deployments show [DEPLOYMENT]
  npx prognoz deployments update DEPLOYMENT [--min-instances N] [--max-instances N]
  npx prognoz models examples add MODEL PREDICTION_ID   (shown on the model's page)
  npx prognoz models examples remove MODEL PREDICTION_ID
  npx prognoz models examples list MODEL

Options: --json (machine-readable output), --stack NAME (a deployed stack),
--table NAME (a table; with --user-pool ID for the owners' pool, --cluster-prefix
PREFIX for the fleets: the stack's name and a dash, --bucket NAME for the outputs
bucket). Without them: the local
runtime (npm start) running on the data folder --data-dir DIR, else
PROGNOZ_DATA_DIR, else npm start's default (local/.data/dynamodb).`;

const accountJson = (account: AccountSummary) => ({
  id: account.id,
  username: account.username,
  name: account.name,
  created_at: account.createdAt,
  balance: formatRoubles(account.balanceKopecks),
  held: formatRoubles(account.heldKopecks),
  monthly_limit: account.monthlyLimitKopecks === null ? null : formatRoubles(account.monthlyLimitKopecks),
  month: account.month,
  spent_this_month: formatRoubles(account.spentThisMonthKopecks),
});

const run = async (argv: string[]): Promise<number> => {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      stack: { type: 'string' },
      table: { type: 'string' },
      'user-pool': { type: 'string' },
      'cluster-prefix': { type: 'string' },
      bucket: { type: 'string' },
      username: { type: 'string' },
      name: { type: 'string' },
      'data-dir': { type: 'string' },
      email: { type: 'string' },
      balance: { type: 'string' },
      'monthly-limit': { type: 'string' },
      'min-instances': { type: 'string' },
      'max-instances': { type: 'string' },
      operator: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [group, command, ...args] = positionals;
  if (values.help || !group || !command) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const target = await resolveTarget({
    ...(values.stack ? { stack: values.stack } : {}),
    ...(values.table ? { table: values.table } : {}),
    ...(values['user-pool'] ? { userPool: values['user-pool'] } : {}),
    ...(values['cluster-prefix'] ? { clusterPrefix: values['cluster-prefix'] } : {}),
    ...(values.bucket ? { bucket: values.bucket } : {}),
    ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}),
  });
  // Which deployment or runtime this acts on, before what it did: two runtimes may run at once.
  if (!values.json) console.log(`(${target.description})`);
  const accounts = dynamoAccountStore(target.tableName, target.client);
  const now = systemClock.now();
  const print = (data: unknown, text: string) => console.log(values.json ? JSON.stringify(data) : text);
  const needAccount = async () => {
    const id = args[0];
    if (!id) throw new Error('which account? give its id');
    const account = await accounts.getAccount(asAccountId(id), now);
    if (!account) throw new Error(`no account ${id} in ${target.description}`);
    return account;
  };
  const ownerPool = () => {
    if (target.ownerPool === null)
      throw new Error(`no owners' pool is known for ${target.description}: give --user-pool ID (or --stack NAME)`);
    return cognitoOwnerPool(target.ownerPool.poolId, target.ownerPool.client);
  };
  const show = (account: AccountSummary) =>
    print(
      accountJson(account),
      `account   ${account.id} (${account.username}${account.name === account.username ? '' : `, ${account.name}`})\nbalance   ${formatRoubles(account.balanceKopecks)} ₽ (${formatRoubles(account.heldKopecks)} ₽ held by predictions in flight)\nthis month (${account.month})  ${formatRoubles(account.spentThisMonthKopecks)} ₽ spent, limit ${account.monthlyLimitKopecks === null ? 'none' : `${formatRoubles(account.monthlyLimitKopecks)} ₽`}`,
    );

  if (group === 'deployments') {
    const code = await deploymentsCommand(command, args, values, target, loadModelCatalog(processEnvironment()), print);
    if (code === 2) console.error(USAGE);
    return code;
  }

  if (group === 'models' && command === 'examples') {
    const code = await examplesCommand(args, target, loadModelCatalog(processEnvironment()), print);
    if (code === 2) console.error(USAGE);
    return code;
  }

  switch (`${group} ${command}`) {
    case 'accounts create': {
      const id = asAccountId(randomUUID());
      const limit = values['monthly-limit'];
      const username = values.username;
      if (username !== undefined && !USERNAME.test(username))
        throw new Error(
          `the username ${username} is not a handle: lower-case letters, digits and dashes (not at either end), at most 39, not a UUID`,
        );
      await accounts.createAccount(id, now, {
        ...(username === undefined ? {} : { username }),
        ...(values.name === undefined ? {} : { displayName: values.name }),
        balanceKopecks: values.balance ? parseRoubles(values.balance) : 0,
        monthlyLimitKopecks: limit === undefined || limit === 'none' ? null : parseRoubles(limit),
      });
      const account = await accounts.getAccount(id, now);
      if (account) show(account);
      return 0;
    }
    case 'accounts show':
      show(await needAccount());
      return 0;
    case 'accounts topup': {
      const account = await needAccount();
      await accounts.topUp(account.id, parseRoubles(args[1] ?? ''));
      show((await accounts.getAccount(account.id, now)) ?? account);
      return 0;
    }
    case 'accounts set-limit': {
      const account = await needAccount();
      const limit = args[1];
      if (limit === undefined) throw new Error('give a limit in roubles, or `none`');
      await accounts.setMonthlyLimit(account.id, limit === 'none' ? null : parseRoubles(limit));
      show((await accounts.getAccount(account.id, now)) ?? account);
      return 0;
    }
    case 'tokens create': {
      const account = await needAccount();
      const token = generateToken();
      const { id: tokenId } = await accounts.addToken(account.id, token, now);
      print(
        { id: tokenId, account: account.id, token },
        `token ${tokenId} for ${account.id}:\n\n  ${token}\n\nIt is shown this once; only its hash is kept.`,
      );
      return 0;
    }
    case 'tokens list': {
      const account = await needAccount();
      const tokens = await accounts.listTokens(account.id);
      print(
        tokens.map((t) => ({
          id: t.id,
          hint: t.hint,
          created_at: t.createdAt,
          last_used_at: t.lastUsedAt,
          revoked: t.revoked,
        })),
        tokens
          .map(
            (t) =>
              `${t.id}  ${t.hint}  ${t.createdAt}  last used ${t.lastUsedAt ?? 'never'}${t.revoked ? '  revoked' : ''}`,
          )
          .join('\n') || 'no tokens',
      );
      return 0;
    }
    case 'tokens revoke': {
      const account = await needAccount();
      const tokenId = args[1];
      if (!tokenId || !(await accounts.revokeToken(account.id, tokenId)))
        throw new Error(`account ${account.id} has no token ${tokenId ?? ''}`);
      print({ id: tokenId, revoked: true }, `token ${tokenId} revoked`);
      return 0;
    }
    case 'owners add': {
      const account = await needAccount();
      const email = values.email?.trim();
      if (!email || !EMAIL.test(email)) throw new Error("give the owner's email: --email EMAIL");
      const added = await addOwner(
        { pool: ownerPool(), accounts, clock: systemClock },
        { account: account.id, email, firstPassword: { kind: 'invitation' } },
      );
      if (!added.ok) throw new Error(added.error);
      if (values.operator) await ownerPool().makeOperator(email);
      const { sub, status, created } = added.value;
      print(
        { account: account.id, email, sub, status, created, operator: values.operator },
        (created
          ? `${email} owns account ${account.id} (user ${sub}): Cognito emails them a temporary password, to be changed at the first sign-in`
          : `${email} was in the owners' pool already (user ${sub}, ${status}); now linked to account ${account.id}`) +
          (values.operator ? '; an operator (resizes deployments) from their next sign-in' : ''),
      );
      return 0;
    }
    case 'owners list': {
      const account = await needAccount();
      const pool = target.ownerPool === null ? null : ownerPool();
      const owners = await Promise.all(
        (await accounts.ownersOf(account.id)).map(async (owner) => ({
          ...owner,
          status:
            pool === null || owner.email === null ? null : ((await pool.statusOf(owner.email)) ?? 'not in the pool'),
        })),
      );
      print(
        owners.map((o) => ({ sub: o.sub, email: o.email, linked_at: o.linkedAt, status: o.status })),
        owners
          .map(
            (o) =>
              `${o.sub}  ${o.email ?? '(email not kept)'}  linked ${o.linkedAt}${o.status === null ? '' : `  ${o.status}`}`,
          )
          .join('\n') || 'no owners',
      );
      return 0;
    }
    default:
      console.error(USAGE);
      return 2;
  }
};

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`prognoz: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
