import * as z from 'zod';
import type { AccountSummary } from '../ports/account-store.ts';
import { formatRoubles, parseRoubles } from '../domain/money.ts';

const roubles = (description: string) => z.number().describe(`${description}, in roubles.`);

/** `GET /account`: balance, what predictions in flight hold of it, this month's spend and the monthly limit. */
export const accountViewSchema = z
  .object({
    id: z.string(),
    type: z
      .literal('organization')
      .describe("Replicate's account type: an account here is its owners' shared one, as an organization is."),
    username: z.string().describe("The account's handle, set by the operator when making it (its id by default)."),
    name: z.string().describe('What the account is called (its username unless the operator named it).'),
    github_url: z.null().describe("Replicate's link to the account's GitHub: none here."),
    currency: z.literal('RUB'),
    balance: roubles('The balance'),
    held: roubles('What predictions in flight hold of the balance (0 at rest)').nonnegative(),
    month: z
      .string()
      .regex(/^\d{4}-\d{2}$/)
      .describe('The calendar month (UTC) the spend is counted in, `YYYY-MM`.'),
    spent_this_month: roubles('Spent this month').nonnegative(),
    monthly_limit: roubles('The most the account may spend in a month').nullable().describe('null: no monthly limit.'),
  })
  .meta({ id: 'Account' });

export type AccountView = z.infer<typeof accountViewSchema>;

const roublesOf = (kopecks: number): number => Number(formatRoubles(kopecks));

export const accountView = (account: AccountSummary): AccountView => ({
  id: account.id,
  type: 'organization',
  username: account.username,
  name: account.name,
  github_url: null,
  currency: 'RUB',
  balance: roublesOf(account.balanceKopecks),
  held: roublesOf(account.heldKopecks),
  month: account.month,
  spent_this_month: roublesOf(account.spentThisMonthKopecks),
  monthly_limit: account.monthlyLimitKopecks === null ? null : roublesOf(account.monthlyLimitKopecks),
});

/** The highest monthly limit, in roubles: its kopecks stay exact in a JSON number. */
export const MAX_MONTHLY_LIMIT_ROUBLES = 1_000_000_000_000;

/** A rouble amount as JSON writes it with at most two decimals (`12`, `0.3`, `99.99`; not `1e-7`). */
const KOPECK_AMOUNT = /^\d+(\.\d{1,2})?$/;

/** The body of `PATCH /account`: what an owner may change of their account. */
export const accountChangeSchema = z
  .strictObject({
    monthly_limit: z
      .number()
      .nonnegative()
      .max(MAX_MONTHLY_LIMIT_ROUBLES)
      .multipleOf(0.01)
      .refine((roubles) => KOPECK_AMOUNT.test(String(roubles)), 'a rouble amount has at most two decimals')
      .nullable()
      .describe(
        'The most the account may spend in a calendar month (UTC), in roubles; null removes the limit. Creates beyond it are refused with 402 `monthly_limit_reached`.',
      ),
  })
  .meta({ id: 'AccountChange' });

export type AccountChange = z.infer<typeof accountChangeSchema>;

/** The limit as the account store keeps it: whole kopecks, or null for none. */
export const monthlyLimitKopecksOf = (change: AccountChange): number | null =>
  change.monthly_limit === null ? null : parseRoubles(String(change.monthly_limit));
