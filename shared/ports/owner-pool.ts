/**
 * How a new owner gets their first password: Cognito's invitation email with a temporary one
 * (the console asks for a new one at the first sign-in), or one set outright and for good (the
 * local runtime's owner, whose password is printed at start).
 */
export type FirstPassword = { readonly kind: 'invitation' } | { readonly kind: 'permanent'; readonly password: string };

export interface PoolUser {
  /** Cognito's user id: what an owner's access token names, and what the table links to an account. */
  readonly sub: string;
  /** FORCE_CHANGE_PASSWORD until an invited owner chooses a password, then CONFIRMED. */
  readonly status: string;
  /** False when the user was in the pool already (nothing about them was changed but a permanent password). */
  readonly created: boolean;
}

/** The owners' user pool (infra/constructs/owner-sign-in.ts), as the admin API sees it. */
export interface OwnerPool {
  /** Creates the user with this email, or finds the one that has it. */
  addUser(email: string, firstPassword: FirstPassword): Promise<PoolUser>;
  /** Puts the user in the operators group: from their next sign-in on, they may resize deployments. */
  makeOperator(email: string): Promise<void>;
  /** The user's status (FORCE_CHANGE_PASSWORD, CONFIRMED, …), or null when the pool has no such user. */
  statusOf(email: string): Promise<string | null>;
}
