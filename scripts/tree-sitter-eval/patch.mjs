// `node --import ./scripts/tree-sitter-eval/patch.mjs --test out/test/unit/scripts-*.test.js`: the
// script tests with every parseStatements of the compiled server replaced by tree-sitter's
// (analyze.js calls it through the module's exports, so replacing the export is enough).
import { createRequire } from 'node:module';
import { parseStatementsTS } from './adapter.mjs';
const require = createRequire(import.meta.url);
const syntax = require(new URL('../../out/server/src/scripts/syntax.js', import.meta.url).pathname);
syntax.parseStatements = (source) => parseStatementsTS(source);
