/**
 * The HTML renderer (report/html/) against hostile model files: a forest whose feature names and
 * class labels are markup, read through the real forest.json reader, linted, reconstructed by the
 * engine, built into a report and rendered in both modes. The page must contain only the elements
 * the renderer writes, every script and style must carry the nonce, the names must come back
 * intact from the JSON block, and the values must be absent unless explicitly embedded.
 */
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { ReconstructionResult } from '../../server/src/attacks/reconstruction/types';
import { contentSecurityPolicy, renderReportHtml, type RenderOptions } from '../../server/src/report/html';
import { inlineScriptSource, jsonForScript } from '../../server/src/report/html/escape';
import { buildReport } from '../../server/src/report/build';
import { hasProgressChart } from '../../server/src/report/html/sections';
import { loadReportAssets } from '../../server/src/report/html-assets';
import type { AdvisorReport, PrivacyReport, RemedyOutcome, RevealedRows } from '../../server/src/report/model';
import type { FileReport } from '../../server/src/linter/linter';
import { EXAMPLES, REPO_ROOT } from '../support/paths';
import { lintFile } from '../../server/src/linter/linter';
import { assessRecoverability } from '../../server/src/recoverability/assess';
import type { Recoverability } from '../../server/src/recoverability/summary';
import { runningReports } from '../support/running-report';
import { ScriptIndex } from '../../server/src/scripts/workspace';
import { HOSTILE_CLASSES, HOSTILE_FEATURES, hostileReport } from '../support/hostile-report';

const NONCE = 'cmFuZG9tLW5vbmNlLTEyMzQ1Ng==';
const WEBVIEW: RenderOptions = {
  nonce: NONCE,
  mode: 'webview',
  cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
  scripts: { chart: 'https://file+.vscode-resource.vscode-cdn.net/ext/media/vendor/chart.umd.js', report: 'https://file+.vscode-resource.vscode-cdn.net/ext/media/report.js?a=1&b=2' },
  styles: { report: 'https://file+.vscode-resource.vscode-cdn.net/ext/media/report.css' },
};

/** Every element the renderer writes; anything else in the page came from data. */
const ALLOWED_ELEMENTS = new Set(
  'html head meta title link style script body a main header p h1 h2 h3 code dl div dt dd nav ul li section span svg rect details summary table thead tbody tr th td canvas strong button pre footer'.split(' '),
);

/** The page with the bodies of inline scripts and styles cut out (their sources are trusted code, not markup). */
function markupOnly(html: string): string {
  return html.replace(/(<script\b[^>]*>)[\s\S]*?(<\/script>)/g, '$1$2').replace(/(<style\b[^>]*>)[\s\S]*?(<\/style>)/g, '$1$2');
}

function elements(html: string): string[] {
  return [...markupOnly(html).matchAll(/<([a-zA-Z][a-zA-Z0-9-]*)/g)].map((m) => m[1].toLowerCase());
}

function jsonBlock(html: string, id: string): unknown {
  const match = new RegExp(`<script type="application/json" id="${id}" nonce="${NONCE.replace(/[+/=]/g, '\\$&')}">([\\s\\S]*?)</script>`).exec(html);
  return match ? JSON.parse(match[1]) : undefined;
}

describe('renderReportHtml with hostile feature names and labels', () => {
  let report: PrivacyReport;
  let revealed: RevealedRows;
  let result: ReconstructionResult;
  let webview: string;
  let standalone: string;
  let standaloneRevealed: string;
  const assets = loadReportAssets();
  const standaloneOptions: RenderOptions = { nonce: NONCE, mode: 'standalone', scripts: { chart: assets.chart, report: assets.report }, styles: { report: assets.style } };

  before(async () => {
    ({ report, revealed, result } = await hostileReport());
    webview = renderReportHtml(report, WEBVIEW);
    standalone = renderReportHtml(report, standaloneOptions);
    standaloneRevealed = renderReportHtml(report, { ...standaloneOptions, revealed });
  });

  it('the engine certified rows of the hostile forest, so every section is filled', () => {
    assert.equal(report.headline.claim, 'certified');
    assert.ok(report.rows.length > 0 && report.features.length === HOSTILE_FEATURES.length);
    assert.ok(result.certifiedRows > 0);
    assert.deepEqual(assets.missing, [], 'Chart.js, report.js and report.css are found from the package root');
  });

  for (const [name, page] of [
    ['webview', () => webview],
    ['standalone', () => standalone],
    ['standalone with values', () => standaloneRevealed],
  ] as const) {
    it(`${name}: only the renderer's elements, no event handler attributes`, () => {
      const html = page();
      const unexpected = elements(html).filter((e) => !ALLOWED_ELEMENTS.has(e));
      assert.deepEqual(unexpected, []);
      // Escaped text and quoted attribute values may read "onerror=" (a name shown as text);
      // attribute names may not. Every attribute value is double-quoted (escapeHtml escapes `"`).
      for (const tag of markupOnly(html).match(/<[a-zA-Z][^>]*>/g) ?? []) {
        const names = tag.replace(/"[^"]*"/g, '""');
        assert.doesNotMatch(names, /\son[a-z]+\s*=|'/i, tag);
        assert.doesNotMatch(tag, /="javascript:/i, tag);
      }
      assert.doesNotMatch(markupOnly(html), /<img|<svg onload/i);
    });

    it(`${name}: exactly the expected scripts, each with the nonce; styles too; the CSP meta`, () => {
      const html = page();
      const markup = markupOnly(html);
      const scripts = markup.match(/<script\b[^>]*>/g) ?? [];
      const expected = name === 'standalone with values' ? 4 : 3;
      assert.equal(scripts.length, expected, scripts.join('\n'));
      for (const tag of scripts) assert.ok(tag.includes(`nonce="${NONCE}"`), tag);
      assert.equal((html.match(/<\/script>/g) ?? []).length, expected, 'no script element ends early or late');
      for (const tag of markup.match(/<(style|link)\b[^>]*>/g) ?? []) assert.ok(tag.includes(`nonce="${NONCE}"`), tag);
      const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html);
      assert.ok(csp, 'CSP meta present');
      const policy = csp[1].replace(/&#39;/g, "'");
      assert.ok(policy.startsWith("default-src 'none'"));
      assert.ok(policy.includes(`script-src 'nonce-${NONCE}'`));
      if (name === 'webview') {
        assert.ok(policy.includes(`style-src ${WEBVIEW.cspSource} 'nonce-${NONCE}'`));
        assert.ok(policy.includes(`img-src ${WEBVIEW.cspSource} data:`));
      } else {
        assert.ok(policy.includes(`style-src 'nonce-${NONCE}'`));
        assert.ok(!policy.includes('vscode'));
      }
      assert.ok(!/unsafe-inline|unsafe-eval/.test(policy));
    });

    it(`${name}: the names appear escaped, and the JSON block gives back the very report`, () => {
      const html = page();
      assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
      assert.ok(html.includes('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;'));
      assert.ok(html.includes('&amp;amp;'));
      assert.ok(html.includes('it&#39;s &lt;b&gt;bold&lt;/b&gt;'));
      assert.ok(html.includes('&lt;svg onload=alert(3)&gt;'), 'class labels escaped in the header');
      const data = jsonBlock(html, 'report-data') as PrivacyReport;
      assert.deepEqual(data, report);
      assert.deepEqual(
        data.features.map((f) => f.name),
        HOSTILE_FEATURES,
      );
      assert.deepEqual(data.model!.classes, HOSTILE_CLASSES);
    });
  }

  it('values: absent unless embedded; embedded ones parse back and stay hidden until a click', () => {
    for (const html of [webview, standalone]) {
      assert.equal(jsonBlock(html, 'revealed-data'), undefined);
      assert.ok(!html.includes('"values"'));
    }
    assert.match(standalone, /run the CLI with <code>--report-values<\/code>/);
    assert.ok(!standalone.includes('id="reveal-button"'));
    assert.ok(webview.includes('id="reveal-button"'), 'the webview asks the extension for the values');
    assert.deepEqual(jsonBlock(standaloneRevealed, 'revealed-data'), revealed);
    assert.ok(standaloneRevealed.includes('id="reveal-button"'));
    assert.match(standaloneRevealed, /<div id="revealed-rows" class="revealed" hidden><\/div>/);
    assert.match(standaloneRevealed, /Personal data\./);
  });

  it('headline, findings with rule links, tables and the sections a reader expects', () => {
    assert.match(webview, new RegExp(`<span class="big">${report.headline.certifiedRows}</span><span class="of">of ${report.headline.rows} training rows certified`));
    assert.match(webview, /<span class="claim-badge">Certified<\/span>/);
    for (const finding of report.findings) assert.ok(webview.includes(`href="${finding.docsUrl.replace(/&/g, '&amp;')}"`), finding.rule);
    for (const id of ['headline', 'findings', 'features', 'rows', 'progress']) assert.ok(webview.includes(`<section id="${id}"`), id);
    // No advisor was asked for: no section announces one, and no nav link points at one.
    assert.ok(!webview.includes('<section id="advisor"') && !webview.includes('href="#advisor"') && !/[Aa]dvisor not run/.test(webview));
    assert.ok(!webview.includes('<section id="actions"'), 'nothing to do yet: no advisor, no script');
    assert.ok(webview.includes('<canvas id="chart-features"') && webview.includes('<canvas id="row-heatmap"'));
    // The hostile run usually takes about half a second (longer on a loaded machine): a progress
    // chart exactly when the run is long enough for one, else a sentence.
    const t = report.timeline;
    const long = t.length >= 3 && t.at(-1)!.ms - t[0].ms >= 1000;
    assert.equal(hasProgressChart(report), long);
    assert.equal(webview.includes('<canvas id="chart-progress"'), long, `the run took ${t.at(-1)!.ms} ms`);
    assert.equal(webview.includes('<canvas id="chart-phases"'), long);
    assert.equal(/The reconstruction took [\d.]+ m?s: too short for a progress chart\./.test(webview), !long);
    // Every nav link has its section.
    for (const [, id] of webview.matchAll(/<li><a href="#([a-z]+)">/g)) assert.ok(webview.includes(`<section id="${id}"`), id);
    // The per-feature table has one row per feature, with the determined rows.
    const featureRows = [...webview.matchAll(/<tr(?: class="unused")?><th scope="row"><code>([^<]*)<\/code><\/th><td>(yes|no)<\/td><td class="num">(\d+)<\/td>/g)];
    assert.equal(featureRows.length, report.features.length);
    featureRows.forEach((m, i) => assert.equal(Number(m[3]), report.features[i].determinedRows));
  });

  it('webview mode: script and style URLs escaped, values never embedded', () => {
    assert.ok(webview.includes(`<script nonce="${NONCE}" id="report-js" src="https://file+.vscode-resource.vscode-cdn.net/ext/media/report.js?a=1&amp;b=2"></script>`));
    assert.ok(webview.includes(`<link rel="stylesheet" nonce="${NONCE}" href="${WEBVIEW.styles.report}">`));
    assert.throws(() => renderReportHtml(report, { ...WEBVIEW, revealed }), /never embedded/);
  });

  it('standalone mode inlines Chart.js and the report script', () => {
    assert.ok(standalone.includes(inlineScriptSource(assets.chart).slice(0, 2000)));
    assert.ok(standalone.includes(assets.report.slice(assets.report.indexOf('(function')).slice(0, 500)));
    assert.ok(standalone.length > assets.chart.length);
  });

  it('rejects nonces that could break out of an attribute', () => {
    for (const nonce of ['short', 'abc"def-ghijklmnopqr', 'abcdefghijklmnop q']) {
      assert.throws(() => renderReportHtml(report, { ...WEBVIEW, nonce }), /nonce/);
      assert.throws(() => contentSecurityPolicy({ nonce, mode: 'standalone' }), /nonce/);
    }
  });
});

describe('renderReportHtml: estimates and the advisor', () => {
  const file: FileReport = {
    path: '/models/m.joblib',
    format: 'joblib',
    contentHash: 'ab',
    model: null,
    findings: [],
    notes: [],
    recoverability: { status: 'bounded', method: 'bounded-search', rows: 50, certifiedRows: 0, reconstructedRows: 50, seconds: 2, determinedFeatures: { a: 0, b: 0 }, groups: { declared: 0, sources: [], problems: [] } },
  };

  it('an estimate is labelled as one: badge, no proven-feature chart', () => {
    const html = renderReportHtml(buildReport({ file }), WEBVIEW);
    assert.match(html, /<span class="claim-badge">Estimate<\/span>/);
    assert.doesNotMatch(html, /claim-badge">Certified/);
    assert.match(html, /No feature value is proven: the reconstruction is an estimate\./);
    assert.ok(!html.includes('id="chart-features"'));
    assert.match(html, /<p class="summary">Estimate: /);
  });

  it('the advisor: simulations labelled, recommendations escaped, one table row per scenario', () => {
    const outcome = (kind: RemedyOutcome['kind'], label: string, error: number, parameter?: number): RemedyOutcome => ({
      kind,
      label,
      ...(parameter !== undefined ? { parameter } : {}),
      simulation: kind !== 'current',
      status: 'bounded',
      method: 'bootstrap-likelihood',
      certifiedRows: 0,
      reconstructedRows: 50,
      error,
      noBetterThanBaseline: error >= 0.2,
      seconds: 1,
      description: `simulated <${label}>`,
    });
    const advisor: AdvisorReport = {
      truth: 'certified-reconstruction',
      baselineError: 0.2,
      current: outcome('current', 'as trained', 0.01),
      scenarios: [outcome('differential-privacy', 'ε = 1', 0.25, 1), outcome('larger-leaves', 'min_samples_leaf = 5', 0.1, 5)],
      // The advisor's order puts the leaves first here; the one that reaches the baseline (ε = 1) must lead.
      recommendations: [
        { kind: 'larger-leaves', parameter: 5, text: 'Leaves of 5 still leak' },
        { kind: 'differential-privacy', parameter: 1, text: 'Use ε <= 1 & retrain' },
      ],
      seconds: 3,
      partial: true,
    };
    const html = renderReportHtml(buildReport({ file, advisor }), WEBVIEW);
    assert.ok(!html.includes('Advisor not run'));
    assert.match(html, /What if: remedies <span class="tag">simulation<\/span>/);
    // The remedy that brings the reconstruction to the baseline is on top, under "What to do".
    assert.match(html, /<section id="actions"[\s\S]*Most effective remedy[\s\S]*<p class="best-text">Use ε &lt;= 1 &amp; retrain<\/p>/);
    assert.ok(html.indexOf('<section id="actions"') < html.indexOf('<section id="findings"'));
    assert.ok(html.includes('href="#advisor"'));
    assert.match(html, /<ul class="recommendations"><li>Leaves of 5 still leak<\/li><\/ul>/, 'the other advice follows');
    assert.ok(html.includes('simulated &lt;min_samples_leaf = 5&gt;'));
    assert.equal((html.match(/<tr class="(current|scenario)">/g) ?? []).length, 3);
    assert.equal((html.match(/<span class="tag">simulation<\/span><\/th>/g) ?? []).length, 2, 'every scenario but the current model is marked');
    assert.match(html, /random guessing scores 0\.200/);
    assert.match(html, /stopped early/);
    assert.ok(html.includes('id="chart-advisor"'));
  });
});

/** The headline section's markup. */
function headlineOf(html: string): string {
  return /<section id="headline"[\s\S]*?<\/section>/.exec(html)![0];
}

/** Text of the page outside scripts and styles (the JSON block repeats every string). */
function visible(html: string): string {
  return markupOnly(html).replace(/<script\b[^>]*><\/script>/g, '');
}

describe('renderReportHtml: states that measured nothing never read as safe', () => {
  // Still skipped by the engine: XGBoost's random-forest mode without subsample.
  const FOREST = join(REPO_ROOT, 'test', 'fixtures', 'xgboost-objectives', 'xgbrf_full_pima.json');
  const none = (status: Recoverability['status'], reason: string): Recoverability => ({ status, method: 'none', rows: 200, certifiedRows: 0, reconstructedRows: 0, seconds: 0.5, reason, determinedFeatures: {}, groups: { declared: 0, sources: [], problems: [] } });
  let lint: FileReport;
  let skipped: Recoverability;
  before(async () => {
    lint = await lintFile(FOREST, { keepForest: true });
    const forest = lint.forest!;
    delete lint.forest;
    // The real skipped run of the fixture (num_parallel_tree without subsample).
    skipped = (await assessRecoverability(FOREST, forest, { budgetMs: 5000 })).recoverability;
    assert.equal(skipped.status, 'skipped');
  });

  it('skipped, failed, timed out with nothing, not run, running: "Not measured" once, the reason once, not green, the warnings that still apply', () => {
    const warnings = lint.findings.filter((f) => f.severity === 'warning');
    assert.deepEqual(warnings.map((f) => f.rule).sort(), ['first-tree-exposes-counts'], 'the fixture\'s warning');
    const states: [string, Parameters<typeof buildReport>[0], string][] = [
      ['skipped', { file: { ...lint, recoverability: skipped } }, 'Not measured'],
      ['failed', { file: { ...lint, recoverability: none('failed', 'the worker ran out of memory') } }, 'Not measured'],
      ['timeout', { file: { ...lint, recoverability: none('timeout', 'the time budget of 1 s ran out') } }, 'Not measured'],
      ['not-run', { file: lint }, 'Not measured'],
      ['running', { file: lint, running: true, timeline: [{ ms: 0, phase: 'start' }] }, 'Not measured yet'],
    ];
    for (const [name, input, words] of states) {
      const html = renderReportHtml(buildReport(input), WEBVIEW);
      const hl = headlineOf(html);
      assert.match(hl, /class="card headline look-warning /, name);
      assert.doesNotMatch(html, /look-safe|Nothing reconstructed/, name);
      assert.equal(hl.split('Not measured').length - 1, 1, `${name}: "Not measured" once`);
      assert.ok(hl.includes(`<span class="big big-words">${words}</span>`), name);
      const reason = input.file.recoverability?.reason;
      if (reason) assert.equal(visible(html).split(reason.replace(/'/g, '&#39;')).length - 1, 1, `${name}: the reason once`);
      assert.match(hl, /<p class="standing"><a href="#findings">1 warning still applies<\/a>: <code>first-tree-exposes-counts<\/code><\/p>/, name);
    }
    // Without a warning or error standing, the same states are neutral: still not green.
    const quiet = { ...lint, findings: lint.findings.filter((f) => f.severity === 'information') };
    for (const recoverability of [skipped, none('failed', 'x'), none('timeout', 'y')]) {
      const hl = headlineOf(renderReportHtml(buildReport({ file: { ...quiet, recoverability } }), WEBVIEW));
      assert.match(hl, /class="card headline look-neutral /, recoverability.status);
      assert.doesNotMatch(hl, /class="standing"/);
    }
  });

  it('a completed run that recovered nothing: green only when no warning or error stands', () => {
    const nothing = { ...none('exact', ''), reason: undefined };
    const quiet = { ...lint, findings: lint.findings.filter((f) => f.severity === 'information'), recoverability: nothing };
    const safe = headlineOf(renderReportHtml(buildReport({ file: quiet }), WEBVIEW));
    assert.match(safe, /class="card headline look-safe /);
    assert.match(safe, /<span class="claim-badge">Nothing reconstructed<\/span>/);
    const warned = headlineOf(renderReportHtml(buildReport({ file: { ...lint, recoverability: nothing } }), WEBVIEW));
    assert.match(warned, /class="card headline look-warning /);
    assert.match(warned, /1 warning still applies/);
  });

  it('the stylesheet paints green (--mpl-safe) only under .look-safe', () => {
    const css = readFileSync(join(REPO_ROOT, 'media', 'report.css'), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    const rules = [...css.matchAll(/([^{}]+)\{([^{}]*)\}/g)].filter(([, , body]) => /var\(--mpl-safe\)/.test(body));
    assert.ok(rules.length > 0);
    for (const [, selector] of rules) assert.match(selector, /look-safe/, selector.trim());
    // Both themes: the warning and neutral colours come from VS Code's variables, with the fallbacks that follow light/dark.
    assert.match(css, /--mpl-warning: var\(--vscode-editorWarning-foreground, var\(--mpl-chart-yellow\)\)/);
  });

  it('findings most severe first, whatever order they come in', async () => {
    // A model with three warnings and a hint (a regression forest with bootstrap).
    const several = await lintFile(join(REPO_ROOT, 'test', 'fixtures', 'estimators', 'rf_reg.joblib'));
    const reversed = { ...several, findings: [...several.findings].reverse() };
    // exact-counts is a hint (the least severe) and comes first once reversed.
    assert.equal(reversed.findings[0].severity, 'hint');
    const html = renderReportHtml(buildReport({ file: reversed }), WEBVIEW);
    const order = [...html.matchAll(/<li class="finding sev-([a-z]+)">/g)].map((m) => m[1]);
    assert.deepEqual(order, ['warning', 'warning', 'warning', 'hint']);
  });

  it('no reconstruction: one sentence instead of empty per-feature, per-row and progress cards, and no nav links to them', () => {
    const html = renderReportHtml(buildReport({ file: { ...lint, recoverability: skipped }, timeline: [{ ms: 0, phase: 'start' }, { ms: 20, phase: 'done' }] }), WEBVIEW);
    for (const id of ['features', 'rows', 'progress', 'advisor', 'actions']) {
      assert.ok(!html.includes(`<section id="${id}"`), id);
      assert.ok(!html.includes(`href="#${id}"`), id);
    }
    assert.match(html, /<section id="details"[\s\S]*nothing to show per feature, per row or over time/);
    assert.ok(!html.includes('<canvas id="chart-features"'));
  });

  it('the advisor announced only when queued or running; never when it will not run', () => {
    const file = { ...lint, recoverability: skipped };
    assert.ok(!renderReportHtml(buildReport({ file }), WEBVIEW).includes('advisor'), 'not enabled: not a word about it');
    const queued = renderReportHtml(buildReport({ file: lint, running: true, advisorPending: 'queued' }), WEBVIEW);
    assert.match(queued, /<section id="actions"[\s\S]*The what-if advisor is queued/);
    const running = renderReportHtml(buildReport({ file: lint, recoverability: undefined, advisorPending: 'running' }), WEBVIEW);
    assert.match(running, /The what-if advisor is simulating the remedies/);
  });

  it('What to do: the training-script line that builds the model (examples/train.py), first after the headline', () => {
    const train = join(EXAMPLES, 'train.py');
    const index = new ScriptIndex();
    index.update(train, readFileSync(train, 'utf8'));
    const scripts = index.references(join(EXAMPLES, 'models', 'diabetes_forest.joblib'));
    const builds = scripts.find((r) => r.role === 'estimator')!;
    assert.ok(builds && builds.text.startsWith('forest = RandomForestClassifier('), 'train.py builds the forest');
    const html = renderReportHtml(buildReport({ file: { ...lint, recoverability: skipped }, scripts }), WEBVIEW);
    const actions = /<section id="actions"[\s\S]*?<\/section>/.exec(html)?.[0];
    assert.ok(actions, 'a What to do section');
    assert.ok(actions.includes(`data-line="${builds.line}"`) && actions.includes(`:${builds.line + 1}</code>`), 'a link to the constructor line');
    assert.ok(!actions.includes('joblib.dump('), 'the line that builds the model, not the one that saves it');
    assert.match(actions, /light bulb/, 'the webview points at the quick fixes');
    assert.ok(html.indexOf('<section id="headline"') < html.indexOf('<section id="actions"') && html.indexOf('<section id="actions"') < html.indexOf('<section id="findings"'));
    assert.ok(html.includes('<li><a href="#actions">What to do</a></li>'));
  });

  it('the progress chart: drawn for a run of seconds, not for one of milliseconds', async () => {
    const { final } = await runningReports(2000, 'diabetes_xgb.json');
    const t = final.timeline;
    assert.ok(t.length >= 3 && t.at(-1)!.ms >= 1000, `${t.length} points over ${t.at(-1)!.ms} ms`);
    assert.ok(renderReportHtml(final, WEBVIEW).includes('<canvas id="chart-progress"'));
    const short = { ...final, timeline: [t[0], { ...t.at(-1)!, ms: 29 }] };
    const html = renderReportHtml(short, WEBVIEW);
    assert.ok(!html.includes('<canvas id="chart-progress"') && !html.includes('<canvas id="chart-phases"'));
    assert.match(html, /took 29 ms: too short for a progress chart/);
  });
});

describe('escaping helpers', () => {
  it('jsonForScript: no character that can end a script element, same value back', () => {
    const value = { a: '</script><!--<script>', b: '&\u2028\u2029>', c: [1, null, true] };
    const text = jsonForScript(value);
    assert.doesNotMatch(text, /[<>&\u2028\u2029]/);
    assert.deepEqual(JSON.parse(text), value);
  });

  it('inlineScriptSource: `</script` and `<!--` inside trusted code are neutralised', () => {
    const source = 'var s = "</script>"; var t = "<!--"; var u = "</SCRIPT >";';
    const inlined = inlineScriptSource(source);
    assert.doesNotMatch(inlined, /<\/script|<!--/i);
    // Same program: the escapes mean the same characters in JavaScript strings.
    const run = (code: string) => new Function(`${code}; return [s, t, u];`)();
    assert.deepEqual(run(inlined), run(source));
  });

  it('the renderer is pure: its compiled modules require nothing but each other', () => {
    const dir = join(REPO_ROOT, 'out', 'server', 'src', 'report', 'html');
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.js'))) {
      const code = readFileSync(join(dir, name), 'utf8');
      const required = [...code.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]);
      for (const module of required) assert.match(module, /^\.\/[a-z-]+$/, `${name} requires ${module}`);
    }
  });
});
