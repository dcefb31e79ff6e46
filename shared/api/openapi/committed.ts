import packageJson from '../../../package.json' with { type: 'json' };
import { modelsOf, repositoryCatalog } from '../../catalog/model-catalog.ts';
import { openApiDocument } from './document.ts';

/** The committed openapi.json: the repository's own models, every one (none withheld), the relative server. */
export const committedDocumentText = (): string =>
  `${JSON.stringify(openApiDocument({ models: modelsOf(repositoryCatalog()), version: packageJson.version }), null, 2)}\n`;
