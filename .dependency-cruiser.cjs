/**
 * The layering, held by a tool (npm run check, and CI through .ci/run): a rule broken fails
 * the build. docs/architecture.md explains the layers.
 *
 *   http/      the wire: decoders, replies, routes. Never the store.
 *   console/   the operator's pages: a wire too (it reuses http/'s decoders). Never the store.
 *   pages/     the member pages under /auth/ACCOUNT/: a wire too. Never the store.
 *   members/, accounts/, auth/, import-export/, upkeep/, observability/, upstream/, events/, webhooks/, operators/, mail/: the domain and its
 *              services. They own their store interfaces; they never import the store.
 *   store/     the one SQL implementation of those interfaces. Never the wire.
 *   common/    what every layer may use (clock, validation, worker threads, store errors).
 *   client/    the typed client, shipped on its own: nothing else of src/.
 *   compose.ts, app.ts, server.ts, main.ts, config.ts: the composition root and its entries.
 */
const DOMAIN = '^src/(members|accounts|auth|import-export|upkeep|observability|upstream|events|webhooks|operators|mail)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import circle anywhere: each module can be read after the ones it uses.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'http-not-store',
      severity: 'error',
      comment: 'The wire speaks to services; what a store answers reaches it as values or common/store-errors.',
      from: { path: '^src/(http|console|pages)/' },
      to: { path: '^src/store/' },
    },
    {
      name: 'store-not-http',
      severity: 'error',
      comment: 'The store knows nothing of form parameters or answers.',
      from: { path: '^src/store/' },
      to: { path: '^src/(http|console|pages)/' },
    },
    {
      name: 'domain-not-store',
      severity: 'error',
      comment: 'Domain folders own their store interfaces; only the composition root picks the implementation.',
      from: { path: DOMAIN },
      to: { path: '^src/store/' },
    },
    {
      name: 'domain-not-http',
      severity: 'error',
      comment: 'Services are called by the wire, never the other way round.',
      from: { path: DOMAIN },
      to: { path: '^src/http/' },
    },
    {
      name: 'common-is-a-leaf',
      severity: 'error',
      comment: 'common/ is used by every layer and uses none.',
      from: { path: '^src/common/' },
      to: { path: '^src/(?!common/)' },
    },
    {
      name: 'client-stands-alone',
      severity: 'error',
      comment: 'member-api/client is shipped to integrators: it depends on nothing else in src/.',
      from: { path: '^src/client/' },
      to: { path: '^src/(?!client/)' },
    },
    {
      name: 'no-root-from-layers',
      severity: 'error',
      comment: 'Only the entry points import the composition root (compose.ts, app.ts, server.ts, main.ts).',
      from: { path: '^src/(http|console|pages|members|accounts|auth|store|upkeep|observability|upstream|events|webhooks|operators|mail|common|client)/' },
      to: { path: '^src/(compose|app|server|main)\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // The type imports count too: a layer that names another's types depends on it.
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
