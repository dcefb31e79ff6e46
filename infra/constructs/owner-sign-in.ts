import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import {
  AccountRecovery,
  CfnUserPoolGroup,
  FeaturePlan,
  Mfa,
  StandardThreatProtectionMode,
  UserPool,
  UserPoolClient,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { OPERATORS_GROUP } from '../../shared/domain/operators.ts';

/**
 * How account owners sign in to the console (interface: Owners): an Amazon Cognito user pool of
 * owners, email and password, created by the admin CLI (no one signs up by themselves), and the
 * console's app client. The API accepts an owner's access token from this pool beside API tokens.
 * Owners in its operators group operate the stack too.
 */
export class OwnerSignIn extends Construct {
  readonly userPool: UserPool;
  readonly client: UserPoolClient;
  /** The owners who operate the stack (OPERATORS_GROUP). */
  readonly operators: CfnUserPoolGroup;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.userPool = new UserPool(this, 'Owners', {
      signInAliases: { email: true },
      selfSignUpEnabled: false,
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: false,
        requireDigits: true,
        requireSymbols: false,
      },
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { otp: true, sms: false },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      // An owner controls an account's spending and its API tokens. The Plus plan's threat
      // protection scores every sign-in's risk and checks passwords against known leaks; in audit
      // mode it records and reports (CloudWatch metrics, user event history) but blocks nothing,
      // as AWS advises for the first weeks, and as long as the console cannot answer an MFA
      // challenge, which its full-function mode may ask of a risky sign-in.
      featurePlan: FeaturePlan.PLUS,
      standardThreatProtectionMode: StandardThreatProtectionMode.AUDIT_ONLY,
      // An owner lost with the stack can be created again; their accounts and data stay in the table.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.client = this.userPool.addClient('Console', {
      authFlows: { userPassword: true, userSrp: true },
      generateSecret: false,
      accessTokenValidity: Duration.hours(1),
      idTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.days(30),
      preventUserExistenceErrors: true,
    });
    // Cognito puts a member's groups in their access token (`cognito:groups`), signed with the
    // rest of it: an operator is told apart from the token alone, with no lookup. Membership is
    // given with AdminAddUserToGroup; no one joins by themselves.
    this.operators = new CfnUserPoolGroup(this, 'Operators', {
      userPoolId: this.userPool.userPoolId,
      groupName: OPERATORS_GROUP,
      description:
        "Owners who operate the stack: they resize the models' fleets (PATCH /api/v1/deployments/{company}/{model}).",
    });
  }

  /** The pool's issuer, which names the owners' access tokens the authorizer accepts (infra/constructs/process-bindings.ts). */
  get issuer(): string {
    return `https://cognito-idp.${Stack.of(this).region}.amazonaws.com/${this.userPool.userPoolId}`;
  }
}
