/** Layer rules (docs/architecture.md, architecture: Layout), enforced in the test command. */
module.exports = {
  forbidden: [
    {
      name: 'shared-is-the-core',
      comment: 'shared/ is imported by everyone and imports nothing of theirs.',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^(infra|functions|worker|local|test|bench)/' },
    },
    {
      name: 'the-core-sees-ports-not-adapters',
      comment:
        'The domain, use cases, API shapes, workflow and models know their collaborators by the ports in shared/ports; only the processes that wire them (functions, worker, local, cli) pick an adapter.',
      severity: 'error',
      from: { path: '^shared/(domain|use-cases|api|ports|workflow|catalog)/' },
      to: { path: '^shared/adapters/' },
    },
    {
      name: 'nobody-imports-functions',
      comment:
        'Only the local runtime (which hosts the handlers), infra (as asset paths) and tests reach into functions/.',
      severity: 'error',
      from: { path: '^(shared|worker)/' },
      to: { path: '^functions/' },
    },
    {
      name: 'nobody-imports-local',
      comment: 'local/ is the embedded runtime; production code never depends on it.',
      severity: 'error',
      from: { path: '^(shared|functions|worker|infra)/' },
      to: { path: '^local/' },
    },
    {
      name: 'infra-knows-code-only-by-path',
      comment: 'infra/ names handlers and the worker by their source paths (assets), never by import.',
      severity: 'error',
      from: { path: '^infra/' },
      to: { path: '^(functions|worker|local)/' },
    },
    {
      name: 'worker-is-standalone',
      comment: 'The worker ships in its own container with shared/ only.',
      severity: 'error',
      from: { path: '^worker/' },
      to: { path: '^(infra|local|bench)/' },
    },
    {
      name: 'production-code-never-imports-tests',
      severity: 'error',
      from: { path: '^(shared|functions|worker|infra|local)/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'console-runs-in-a-browser',
      comment:
        'The console (web/console) bundles for the browser: of the service it takes only types and pure shared code, never an adapter (SDK, node).',
      severity: 'error',
      from: { path: '^web/console/' },
      to: { path: '^(infra|functions|worker|local|cli|shared/adapters|shared/use-cases)/' },
    },
    {
      name: 'shared-reads-no-files',
      comment:
        'Nothing under shared/ reads the filesystem, when imported or called, but its adapters and its configuration (shared/config/model-catalog.ts reads the extra model catalog a local run names): what a file holds is read where a process starts (its composition root) and handed in, as the model catalog is.',
      severity: 'error',
      from: { path: '^shared/', pathNot: '^shared/(adapters|config)/' },
      to: { dependencyTypes: ['core'], path: '^(node:)?fs(/promises)?$' },
    },
    {
      name: 'the-domain-is-pure',
      comment:
        'shared/domain is the rules as functions of their inputs: it knows no model catalog, use case, API shape, port, workflow or adapter.',
      severity: 'error',
      from: { path: '^shared/domain/' },
      to: { path: '^shared/(catalog|use-cases|api|ports|workflow|adapters)/' },
    },
    {
      name: 'ports-speak-domain-and-messages',
      comment:
        "A port's signature is made of domain types and the workflow's message contract (shared/workflow/messages.ts), nothing else.",
      severity: 'error',
      from: { path: '^shared/ports/' },
      to: { path: '^shared/', pathNot: '^shared/(domain/|ports/|workflow/messages\\.ts$)' },
    },
    {
      name: 'use-cases-know-no-api-shape',
      comment:
        "A use case returns domain values; how the API shows them (shared/api) is the handler's concern, passed in where a use case must send one (a webhook body).",
      severity: 'error',
      from: { path: '^shared/use-cases/' },
      to: { path: '^shared/api/' },
    },
    {
      name: 'handlers-call-no-sdk',
      comment:
        'A handler parses, calls a use case and shapes the answer: every AWS SDK call is an adapter in shared/adapters.',
      severity: 'error',
      from: { path: '^functions/' },
      to: { path: 'node_modules/@aws-sdk/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'the-cli-is-a-client',
      comment:
        'cli/ (the operator commands, smoke) works through the API or the adapters of shared/, never through the processes of the service; only the local runtime reads its target file.',
      severity: 'error',
      from: { path: '^cli/' },
      to: { path: '^(functions|worker|local|infra|bench|test)/' },
    },
    {
      name: 'nobody-but-local-imports-cli',
      severity: 'error',
      from: { path: '^(shared|functions|worker|infra|web)/' },
      to: { path: '^cli/' },
    },
    {
      name: 'the-bench-drives-from-outside',
      comment:
        'bench/ measures the local runtime as a caller does (local/ starts it, test/support calls it, infra names the bundles): it never imports a handler or the worker.',
      severity: 'error',
      from: { path: '^bench/' },
      to: { path: '^(functions|worker)/' },
    },
    {
      name: 'the-local-runtime-loads-no-cdk',
      comment:
        'The local runtime reads the synthesized template; the CDK (~600 MiB, seconds to load) is loaded only in the process that synthesizes it (local/synthesis-host.ts), which then ends.',
      severity: 'error',
      from: { path: '^local/', pathNot: '^local/(synthesize|synthesis-host)\\.ts$' },
      to: { path: 'node_modules/aws-cdk-lib/', reachable: true },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
