/**
 * `npm run openapi`: writes openapi.json at the repository root, the document of the API with the
 * repository's models, so that a change to the API shows in review (test/unit/openapi.test.ts
 * fails until it is regenerated). A deployment serves its own at GET /api/v1/openapi.json.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { committedDocumentText } from '../shared/api/openapi/committed.ts';

const target = path.resolve(import.meta.dirname, '..', 'openapi.json');
writeFileSync(target, committedDocumentText());
console.log(`wrote ${path.relative(process.cwd(), target)}`);
