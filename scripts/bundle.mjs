// Bundles the extension client, the language server, its workers and the CLI into dist/ with
// esbuild (after `tsc -b` has type-checked everything), writes the JSON schemas of the forest
// interchange file and of the privacy sidecar, copies HiGHS's WebAssembly beside the bundles and
// Chart.js into media/vendor/ (the report's charts).
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
// HiGHS ships an ES module build that finds highs.wasm through `import.meta.url`, which a CommonJS
// bundle does not have; its CommonJS build finds it through `__dirname`. Always take that one.
const highsCommonJs = {
  name: 'highs-commonjs',
  setup(b) {
    b.onResolve({ filter: /^highs$/ }, () => ({ path: require.resolve('highs') }));
  },
};
// 'module' first: jsonc-parser's UMD build hides its requires from the bundler.
const common = { mainFields: ['module', 'main'], bundle: true, platform: 'node', format: 'cjs', target: 'node20', sourcemap: true, logLevel: 'warning', plugins: [highsCommonJs] };

await Promise.all([
  build({ ...common, entryPoints: ['client/src/extension.ts'], outfile: 'dist/client.js', external: ['vscode'] }),
  build({ ...common, entryPoints: ['server/src/server.ts'], outfile: 'dist/server.js' }),
  build({ ...common, entryPoints: ['server/src/jobs/lint-worker.ts'], outfile: 'dist/lint-worker.js' }),
  build({ ...common, entryPoints: ['server/src/jobs/reconstruction-worker.ts'], outfile: 'dist/reconstruction-worker.js' }),
  // The integer solve's own thread (highs/milp-thread.ts finds it beside the bundle that runs it).
  build({ ...common, entryPoints: ['server/src/attacks/reconstruction/highs/milp-worker.ts'], outfile: 'dist/milp-worker.js' }),
  // The point search's sweep threads (boxes/point-search-thread.ts finds them the same way).
  build({ ...common, entryPoints: ['server/src/attacks/reconstruction/boxes/point-search-worker.ts'], outfile: 'dist/point-search-worker.js' }),
  build({ ...common, entryPoints: ['server/src/cli.ts'], outfile: 'dist/cli.js' }),
]);

// Chart.js for the privacy report (webview and the CLI's HTML): a browser script, not bundled
// into anything; media/vendor/ is build output (git-ignored) that the .vsix carries.
mkdirSync('media/vendor', { recursive: true });
// The package's exports hide dist/chart.umd.js; it sits beside the CommonJS entry (dist/chart.cjs).
copyFileSync(join(dirname(require.resolve('chart.js')), 'chart.umd.js'), 'media/vendor/chart.umd.js');

// HiGHS's WebAssembly binary: the bundled highs.js loads it from its own directory
// (`__dirname + "/highs.wasm"`), which once bundled is dist/.
copyFileSync(require.resolve('highs/runtime'), 'dist/highs.wasm');

// The `*.forest.json` schema, generated from the zod schema the readers use (one source of truth).
const { zodToJsonSchema } = require('zod-to-json-schema');
const { ForestSchema } = require('../out/server/src/forest/schema.js');
mkdirSync('dist', { recursive: true });
const schema = zodToJsonSchema(ForestSchema, { name: 'Forest', $refStrategy: 'none' });
schema.title = 'Model Privacy Lint forest interchange file (*.forest.json)';
writeFileSync('dist/forest.schema.json', `${JSON.stringify(schema, null, 2)}\n`);

// The `*.privacy.json` sidecar schema (declared categorical groups), from the zod schema the engine reads it with.
const { PrivacySidecarSchema } = require('../out/server/src/recoverability/declared-groups.js');
const sidecarSchema = zodToJsonSchema(PrivacySidecarSchema, { name: 'PrivacySidecar', $refStrategy: 'none' });
sidecarSchema.title = 'Model Privacy Lint sidecar of a model file (<model>.privacy.json)';
writeFileSync('dist/privacy.schema.json', `${JSON.stringify(sidecarSchema, null, 2)}\n`);

