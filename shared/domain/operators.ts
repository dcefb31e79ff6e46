/**
 * The owners' user pool group whose members operate the stack: they resize the models' fleets
 * (PATCH /deployments/{company}/{model}). Membership is in the owner's Cognito access token
 * (`cognito:groups`); an API token never carries it.
 */
export const OPERATORS_GROUP = 'operators';
