/**
 * The TextMate grammar of XGBoost text dumps (syntaxes/xgboost-dump.tmLanguage.json) is valid JSON,
 * its regexes compile (vscode-textmate is not installed: JavaScript RegExp checks the shared
 * Oniguruma/JavaScript subset the grammar keeps to), and every line of the fixture dumps is matched
 * by exactly one line rule, with the node id, feature, threshold and statistics where the dump has them.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { FIXTURES, REPO_ROOT } from '../support/paths';

const grammar = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'syntaxes/xgboost-dump.tmLanguage.json'), 'utf8'));
const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
const repo = grammar.repository;
const re = (source: string, flags = '') => new RegExp(source, flags);

describe('xgboost-dump grammar', () => {
  it('is registered for the language and every regex compiles', () => {
    const entry = pkg.contributes.grammars.find((g: { language: string }) => g.language === 'xgboost-dump');
    assert.equal(entry.scopeName, grammar.scopeName);
    assert.equal(path.normalize(entry.path), path.normalize('./syntaxes/xgboost-dump.tmLanguage.json'));
    const language = pkg.contributes.languages.find((l: { id: string }) => l.id === 'xgboost-dump');
    assert.ok(re(language.firstLine).test('booster[0]:'));
    for (const rule of Object.values(repo) as Record<string, string>[]) {
      for (const key of ['match', 'begin', 'end']) if (rule[key]) re(rule[key]);
    }
  });

  for (const file of ['bin_pima.dump.txt', 'bin_stroke_sk.dump.txt', 'multi_iris.dump.txt']) {
    it(`matches every line of ${file}`, () => {
      const lines = fs.readFileSync(path.join(FIXTURES, 'xgboost', file), 'utf8').split('\n').filter((l) => l.trim());
      const rules = { booster: re(repo.booster.match), split: re(repo.split.begin), leaf: re(repo.leaf.begin) };
      const stat = re(repo.statistic.match, 'g');
      const branch = re(repo.branch.match, 'g');
      let splits = 0;
      for (const line of lines) {
        const hits = Object.entries(rules).filter(([, r]) => r.test(line)).map(([name]) => name);
        assert.equal(hits.length, 1, `${JSON.stringify(line)} matched ${hits.join(',') || 'nothing'}`);
        if (hits[0] === 'booster') continue;
        const m = (hits[0] === 'split' ? rules.split : rules.leaf).exec(line)!;
        assert.equal(m[2], /^\t*(\d+):/.exec(line)![1], 'node id capture');
        const stats = [...line.matchAll(stat)].map((s) => s[1]);
        assert.ok(stats.includes('cover'), `cover highlighted in ${line}`);
        if (hits[0] === 'split') {
          splits++;
          assert.equal(`${m[5]}<${m[7]}`, /\[(.*)\]/.exec(line)![1], 'feature and threshold captures');
          assert.deepEqual([...line.matchAll(branch)].map((b) => b[1]), ['yes', 'no', 'missing']);
          assert.ok(stats.includes('gain'));
        }
      }
      assert.ok(splits > 0);
    });
  }
});
