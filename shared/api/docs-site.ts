/**
 * The API reference page (`/docs`): static files, served as they are by the local runtime and by
 * the AWS stack. The page loads the renderer and its starter beside it and reads the document
 * from `GET /api/v1/openapi.json`.
 */
export const DOCS_PATH = '/docs';

export interface DocsFile {
  /** Its name under /docs/ (`index.html` is the page itself, at /docs). */
  readonly name: string;
  /** Where it is, from the repository root. */
  readonly source: string;
  readonly contentType: string;
}

export const DOCS_FILES: readonly DocsFile[] = [
  { name: 'index.html', source: 'web/docs/index.html', contentType: 'text/html; charset=utf-8' },
  { name: 'reference.js', source: 'web/docs/reference.js', contentType: 'text/javascript; charset=utf-8' },
  // Scalar's self-contained browser build (no chunks, no CDN).
  {
    name: 'scalar.js',
    source: 'node_modules/@scalar/api-reference/dist/browser/standalone.js',
    contentType: 'text/javascript; charset=utf-8',
  },
];

/** The file a request path asks for: `/docs` is the page, `/docs/<name>` a file; anything else null. */
export const docsFileAt = (path: string): DocsFile | null => {
  if (path === DOCS_PATH) return DOCS_FILES.find((file) => file.name === 'index.html') ?? null;
  if (!path.startsWith(`${DOCS_PATH}/`)) return null;
  const name = path.slice(DOCS_PATH.length + 1);
  return DOCS_FILES.find((file) => file.name === name) ?? null;
};
