import { z } from 'zod';
import type { AccountSummary } from '../adapters/account-store.ts';
import { formatRoubles } from '../domain/money.ts';

const roubles = (description: string) => z.number().describe(`${description}, in roubles.`);

/** `GET /account`: balance, what predictions in flight hold of it, this month's spend and the monthly limit. */
export const accountViewSchema = z
  .object({
    id: z.string(),
    currency: z.literal('RUB'),
    balance: roubles('The balance'),
    held: roubles('What predictions in flight hold of the balance (0 at rest)').nonnegative(),
    month: z.string().regex(/^\d{4}-\d{2}$/).describe('The calendar month (UTC) the spend is counted in, `YYYY-MM`.'),
    spent_this_month: roubles('Spent this month').nonnegative(),
    monthly_limit: roubles('The most the account may spend in a month').nullable().describe('null: no monthly limit.'),
  })
  .meta({ id: 'Account' });

export type AccountView = z.infer<typeof accountViewSchema>;

const roublesOf = (kopecks: number): number => Number(formatRoubles(kopecks));

export const accountView = (account: AccountSummary): AccountView => ({
  id: account.id,
  currency: 'RUB',
  balance: roublesOf(account.balanceKopecks),
  held: roublesOf(account.heldKopecks),
  month: account.month,
  spent_this_month: roublesOf(account.spentThisMonthKopecks),
  monthly_limit: account.monthlyLimitKopecks === null ? null : roublesOf(account.monthlyLimitKopecks),
});
