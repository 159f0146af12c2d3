// `npm run build`: the TypeScript sources compiled to dist/ (tsc), then the command's entry
// bundled into one file, dist/member-api.js (esbuild), which bin/member-api.js runs.
//
// Why a bundle: a command loads about 500 modules (Kysely alone is 262 files), and a command
// line that answers in a second spends half of it finding and reading them. One file loads in
// a third of that time. What cannot live in a bundle stays a package of its own: native
// modules, pino (its transports run in threads of their own) and swagger-ui (it serves its
// own files). The worker threads' modules (the SQLite connections, legacy hashes) stay the
// files tsc wrote, and each bundled module keeps its own import.meta.url, so that
// `new URL('./sqlite-worker.js', import.meta.url)` finds the same file as without a bundle.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
// The front ends' stylesheets and the pages' script for the original's registration forms are
// read from beside their modules.
copyFileSync(join(root, 'src/console/console.css'), join(dist, 'console/console.css'));
copyFileSync(join(root, 'src/pages/pages.css'), join(dist, 'pages/pages.css'));
mkdirSync(join(dist, 'pages/assets'), { recursive: true });
copyFileSync(join(root, 'src/pages/assets/regformcheck.js'), join(dist, 'pages/assets/regformcheck.js'));

/** Each module of dist/ sees import.meta.url as its own file's address, not the bundle's. */
const ownImportMetaUrl = {
  name: 'own-import-meta-url',
  setup(builder) {
    builder.onLoad({ filter: /\.js$/ }, (args) => {
      if (!args.path.startsWith(dist + sep)) return undefined;
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      const own = `new URL(${JSON.stringify(relative(dist, args.path).split(sep).join('/'))}, import.meta.url).href`;
      return { contents: source.replaceAll('import.meta.url', own), loader: 'js' };
    });
  },
};

await build({
  entryPoints: [join(dist, 'main.js')],
  outfile: join(dist, 'member-api.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  external: ['better-sqlite3', '@node-rs/argon2', 'pino', 'pino-pretty', '@fastify/swagger-ui'],
  // The CommonJS packages in the bundle call require(): give them one.
  banner: { js: "import { createRequire as bundleRequire } from 'node:module'; const require = bundleRequire(import.meta.url);" },
  plugins: [ownImportMetaUrl],
});
