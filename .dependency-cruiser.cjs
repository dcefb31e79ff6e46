/** Layer rules of DESIGN §1, enforced in the test command. */
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
      from: { path: '^shared/(domain|use-cases|api|ports|workflow|models)/' },
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
