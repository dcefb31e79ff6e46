import path from 'node:path';

export const REPO_ROOT = path.resolve(import.meta.dirname, '..');
export const LOCAL_ACCOUNT = '000000000000';
export const LOCAL_REGION = 'us-east-1';
