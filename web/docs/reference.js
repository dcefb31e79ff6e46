// The reference page: Scalar's renderer over the service's own OpenAPI document. A file of its own
// rather than an inline script, so the page works under a Content-Security-Policy without 'unsafe-inline'.
// The document is found beside the page's base (/docs → /api/v1/openapi.json; on AWS, /prod/docs → /prod/api/v1/…).
const documentUrl = new URL('../api/v1/openapi.json', document.currentScript.src).href;

Scalar.createApiReference('#reference', {
  url: documentUrl,
  // Nothing is fetched from anywhere but this service: no web fonts, no telemetry, no AI agent or MCP, no request proxy.
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
});
