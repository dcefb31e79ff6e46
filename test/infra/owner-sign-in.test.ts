import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { OwnerSignIn } from '../../infra/constructs/owner-sign-in.ts';
import { AUTHORIZER_ENV, authorizerConfigFromEnv } from '../../shared/config/authorizer.ts';
import { OPERATORS_GROUP } from '../../shared/domain/operators.ts';

const stack = new Stack(new App(), 'Owners', { env: { region: 'eu-central-1' } });
const owners = new OwnerSignIn(stack, 'OwnerSignIn');
const template = Template.fromStack(stack);

describe('the owners’ sign-in', () => {
  it('is a user pool of owners by email that no one joins by themselves, with a strong password policy', () => {
    template.resourceCountIs('AWS::Cognito::UserPool', 1);
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      UsernameAttributes: ['email'],
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      Policies: { PasswordPolicy: Match.objectLike({ MinimumLength: 12, RequireNumbers: true }) },
      MfaConfiguration: 'OPTIONAL',
    });
  });

  it('has one app client for the console: password and SRP sign-in, no client secret (it runs in a browser)', () => {
    template.resourceCountIs('AWS::Cognito::UserPoolClient', 1);
    template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      ExplicitAuthFlows: Match.arrayWith([
        'ALLOW_USER_PASSWORD_AUTH',
        'ALLOW_USER_SRP_AUTH',
        'ALLOW_REFRESH_TOKEN_AUTH',
      ]),
      GenerateSecret: false,
      PreventUserExistenceErrors: 'ENABLED',
    });
  });

  it('has the operators’ group in the owners’ pool, by the name the routes check, and gives its members no IAM role', () => {
    expect(OPERATORS_GROUP).toBe('operators');
    template.resourceCountIs('AWS::Cognito::UserPoolGroup', 1);
    const [pool] = Object.keys(template.findResources('AWS::Cognito::UserPool'));
    template.hasResourceProperties('AWS::Cognito::UserPoolGroup', {
      GroupName: OPERATORS_GROUP,
      UserPoolId: { Ref: pool },
      Description: Match.stringLikeRegexp('PATCH /api/v1/deployments/\\{company\\}/\\{model\\}'),
      RoleArn: Match.absent(),
    });
  });

  it('gives the authorizer the pool’s issuer and the console’s client, from which the keys’ address follows', () => {
    expect(JSON.stringify(stack.resolve(owners.client.userPoolClientId))).toMatch(/^\{"Ref":"OwnerSignInOwnersConsole/);
    expect(JSON.stringify(stack.resolve(owners.issuer))).toContain('https://cognito-idp.eu-central-1.amazonaws.com/');
    const ownerSignInOf = (env: Record<string, string>) =>
      authorizerConfigFromEnv({ [AUTHORIZER_ENV.tableName]: 'Table', ...env }).ownerSignIn;
    const config = ownerSignInOf({
      [AUTHORIZER_ENV.ownerIssuer]: 'https://cognito-idp.eu-central-1.amazonaws.com/eu-central-1_abc',
      [AUTHORIZER_ENV.ownerClientId]: 'client',
    });
    expect(config?.jwksUri).toBe(
      'https://cognito-idp.eu-central-1.amazonaws.com/eu-central-1_abc/.well-known/jwks.json',
    );
    const emulated = ownerSignInOf({
      [AUTHORIZER_ENV.ownerIssuer]: 'https://cognito-idp.us-east-1.amazonaws.com/us-east-1_x',
      [AUTHORIZER_ENV.ownerClientId]: 'client',
      [AUTHORIZER_ENV.cognitoEndpoint]: 'http://127.0.0.1:5000/',
    });
    expect(emulated?.jwksUri).toBe('http://127.0.0.1:5000/us-east-1_x/.well-known/jwks.json');
    expect(ownerSignInOf({})).toBeNull();
    expect(() => ownerSignInOf({ [AUTHORIZER_ENV.ownerClientId]: 'client' })).toThrow(/go together/);
  });
});
