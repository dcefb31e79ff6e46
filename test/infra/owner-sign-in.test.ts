import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { OwnerSignIn } from '../../infra/constructs/owner-sign-in.ts';
import { OWNER_SIGN_IN_ENV, ownerSignInFromEnv } from '../../shared/config.ts';

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

  it('gives the authorizer the pool’s issuer and the console’s client, from which the keys’ address follows', () => {
    const env = stack.resolve(owners.environment) as Record<string, unknown>;
    expect(JSON.stringify(env[OWNER_SIGN_IN_ENV.clientId])).toMatch(/^\{"Ref":"OwnerSignInOwnersConsole/);
    expect(JSON.stringify(env[OWNER_SIGN_IN_ENV.issuer])).toContain('https://cognito-idp.eu-central-1.amazonaws.com/');
    const config = ownerSignInFromEnv({
      [OWNER_SIGN_IN_ENV.issuer]: 'https://cognito-idp.eu-central-1.amazonaws.com/eu-central-1_abc',
      [OWNER_SIGN_IN_ENV.clientId]: 'client',
    });
    expect(config?.jwksUri).toBe(
      'https://cognito-idp.eu-central-1.amazonaws.com/eu-central-1_abc/.well-known/jwks.json',
    );
    const emulated = ownerSignInFromEnv({
      [OWNER_SIGN_IN_ENV.issuer]: 'https://cognito-idp.us-east-1.amazonaws.com/us-east-1_x',
      [OWNER_SIGN_IN_ENV.clientId]: 'client',
      AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER: 'http://127.0.0.1:5000/',
    });
    expect(emulated?.jwksUri).toBe('http://127.0.0.1:5000/us-east-1_x/.well-known/jwks.json');
    expect(ownerSignInFromEnv({})).toBeNull();
  });
});
