/**
 * The report's sections as HTML text. Everything readable is rendered here, on the server side
 * of the page, so the report reads without JavaScript (a mail client, a CI artifact viewer) and
 * every table doubles as the accessible form of its chart; media/report.js only adds the charts,
 * the row heatmap and the values after a reveal.
 *
 * Every interpolated value goes through `escapeHtml` (`h`), numbers included: nothing from a
 * model file reaches the page as markup. No inline `style` attributes or event handlers: the
 * page's CSP forbids both.
 */
import type { AdvisorReport, PrivacyReport, RemedyOutcome, ReportFinding, RowsSource, ReportHeadline, ScriptReference } from '../model';
import { escapeHtml as h } from './escape';
import { certifiedCheckText, count, duration, errorValue, METHOD_WORDS, milliseconds, percent, STATUS_WORDS, messageDetail, messageSummary } from './format';
import { phaseRows, phaseSummary } from './live';
import { isMeasured, standingFindings, verdictOf } from './verdict';

/** Rows listed in the exposure table; the heatmap above it shows every row. */
export const ROW_TABLE_LIMIT = 500;

export type Mode = 'webview' | 'standalone';

/** A link: in the webview, media/report.js posts `{type:'open', url}` instead of navigating. */
export function link(url: string, text: string, mode: Mode, extra = ''): string {
  const external = mode === 'standalone' ? ' target="_blank" rel="noopener noreferrer"' : '';
  return `<a href="${h(url)}" data-open="${h(url)}"${external}${extra}>${text}</a>`;
}

/** A horizontal share bar as SVG (attributes, not styles: allowed by the CSP), with the figure as its accessible name. */
export function shareBar(share: number | null, label: string, kind = 'fill'): string {
  const width = share === null || !Number.isFinite(share) ? 0 : Math.max(0, Math.min(100, share * 100));
  return `<svg class="bar" viewBox="0 0 100 6" preserveAspectRatio="none" role="img" aria-label="${h(label)}"><rect class="bar-track" x="0" y="0" width="100" height="6" rx="3"></rect><rect class="bar-${h(kind)}" x="0" y="0" width="${h(width.toFixed(2))}" height="6" rx="3"></rect></svg>`;
}

export function header(report: PrivacyReport): string {
  const m = report.model;
  const facts: [string, string][] = [['Format', report.file.format]];
  if (m) {
    facts.push(
      ['Library', `${m.library}${m.libraryVersion ? ` ${m.libraryVersion}` : ''}`],
      ['Estimator', m.estimator],
      ['Trees', count(m.trees)],
      ['Max depth', count(m.maxDepth)],
      ['Features', count(m.features)],
      ['Classes', m.classes.map(String).join(', ') || '–'],
      ['Training rows', trainingRowsText(report.headline)],
      ['Bootstrap', m.bootstrap ? 'yes' : 'no'],
    );
  }
  return `<header class="report-header">
<p class="eyebrow">Model Privacy Lint &middot; privacy report</p>
<h1>${h(report.file.name)}</h1>
<p class="path" title="${h(report.file.path)}"><code>${h(report.file.path)}</code></p>
<dl class="facts">${facts.map(([k, v]) => `<div><dt>${h(k)}</dt><dd>${h(v)}</dd></div>`).join('')}</dl>
</header>`;
}

const ROWS_SOURCE_WORDS: Record<RowsSource, string> = { file: '', 'bootstrap-replay': ' (from bootstrap replay)', 'first-tree-probe': ' (from first-tree probing)', reconstruction: ' (from the reconstruction)' };

/** N as the headline uses it, with where it comes from when the file does not state it. */
export function trainingRowsText(hl: Pick<ReportHeadline, 'rows' | 'rowsSource'>): string {
  if (hl.rows === null) return 'not stated';
  return `${count(hl.rows)}${hl.rowsSource ? ROWS_SOURCE_WORDS[hl.rowsSource] : ''}`;
}

/** Links to the sections the page has, in its order (index.ts passes only the rendered ones). */
export function nav(items: readonly (readonly [id: string, text: string])[]): string {
  return `<nav class="toc" aria-label="Sections"><ul>${items.map(([id, text]) => `<li><a href="#${id}">${h(text)}</a></li>`).join('')}</ul></nav>`;
}

const CLAIM_HELP = {
  certified: 'Proven from the model alone: every certified row is in the real training data, with these determined values and label.',
  /** An outlier detector's rows have no label. */
  certifiedUnlabelled: 'Proven from the model alone: every certified row is in the real training data, with these determined values.',
  estimate: 'A best reconstruction that fits the model, without proof that any of its rows is in the real training data.',
} as const;

/** The badge: what was found, or, when nothing was measured, why not (the status). */
function badgeWords(hl: ReportHeadline, verdict: ReturnType<typeof verdictOf>['verdict']): string {
  switch (verdict) {
    case 'certified':
      return 'Certified';
    case 'estimate':
      return 'Estimate';
    case 'nothing-found':
      return 'Nothing reconstructed';
    case 'not-measured-yet':
      return 'Running';
    default:
      return { skipped: 'Skipped', failed: 'Failed', timeout: 'Budget ran out' }[hl.status as string] ?? 'Not run';
  }
}

/**
 * The headline (html/verdict.ts has the table of what it shows for every status, claim and worst
 * severity). "Not measured" appears once, as the figure; the reason once, on the "Why" line.
 */
export function headline(report: PrivacyReport): string {
  const hl = report.headline;
  const { verdict, look } = verdictOf(hl);
  const measured = isMeasured(verdict);
  const ofRows = hl.rows !== null ? `of ${h(count(hl.rows))} training rows` : 'training rows';
  const figure =
    verdict === 'certified'
      ? `<span class="big">${h(count(hl.certifiedRows))}</span><span class="of">${ofRows} certified${hl.certifiedWithoutLabel ? `, ${h(count(hl.certifiedWithoutLabel))} more without their label` : ''}</span>`
      : verdict === 'estimate'
        ? `<span class="big">${h(count(hl.reconstructedRows))}</span><span class="of">rows reconstructed${hl.rows !== null ? ` for ${h(count(hl.rows))} training rows` : ''}, 0 certified</span>`
        : verdict === 'nothing-found'
          ? `<span class="big">0</span><span class="of">${ofRows} reconstructed</span>`
          : `<span class="big big-words">${verdict === 'not-measured-yet' ? 'Not measured yet' : 'Not measured'}</span>`;
  // forest/task.ts's hasNoLabels, spelled out: the webview's renderer requires only its own modules.
  const unlabelled = report.model?.task === 'outlier-detection';
  const help = verdict === 'certified' || verdict === 'estimate' ? CLAIM_HELP[verdict === 'certified' && unlabelled ? 'certifiedUnlabelled' : verdict] : verdict === 'nothing-found' ? 'The reconstruction ended by itself and recovered no training row from the model.' : '';
  const meta: [string, string][] = measured
    ? [
        ['Certified share', hl.certifiedShare === null ? '–' : percent(hl.certifiedShare)],
        ['Feature values determined', hl.determinedValueShare === null ? '–' : percent(hl.determinedValueShare)],
        ['Status', STATUS_WORDS[hl.status] ?? hl.status],
        ['Method', METHOD_WORDS[hl.method] ?? hl.method],
        ...(report.boxes ? ([['Median box width', percent(report.boxes.medianWidth)]] as [string, string][]) : []),
        ['Time', duration(hl.seconds)],
      ]
    : // Not measured: the badge says the status, and "–" figures say nothing; only what is known.
      [
        ...(hl.method !== 'none' ? ([['Method', METHOD_WORDS[hl.method] ?? hl.method]] as [string, string][]) : []),
        ...(hl.status !== 'not-run' && hl.status !== 'running' ? ([['Time', duration(hl.seconds)]] as [string, string][]) : []),
      ];
  // The certified share as a bar only when there is a share to see (an estimate's is 0 by definition).
  const bar = verdict === 'certified' && hl.certifiedShare !== null ? shareBar(hl.certifiedShare, `${percent(hl.certifiedShare)} of the training rows certified`, 'certified') : '';
  // What still stands when the headline measured nothing: the reader must not take it for an all-clear.
  const standing = verdict === 'certified' || verdict === 'estimate' ? undefined : standingFindings(report.findings);
  const standingLine = standing
    ? `<p class="standing"><a href="#findings">${h(standing.text)}</a>: ${standing.rules.map((r) => `<code>${h(r)}</code>`).join(', ')}</p>`
    : '';
  const classes = `card headline look-${h(look)} verdict-${h(verdict)} claim-${h(hl.claim)} status-${h(hl.status)}${hl.worstSeverity ? ` worst-${h(hl.worstSeverity)}` : ''}`;
  return `<section id="headline" class="${classes}" aria-labelledby="headline-title">
<h2 id="headline-title" class="visually-hidden">Headline</h2>
<div class="headline-top">
<p class="headline-figure">${figure}</p>
<p class="claim"${help ? ` title="${h(help)}"` : ''}><span class="claim-badge">${h(badgeWords(hl, verdict))}</span></p>
</div>
${bar}
<p class="summary">${h(hl.summary)}</p>
${help ? `<p class="claim-help">${h(help)}</p>` : ''}
${hl.reason ? `<p class="reason"><span class="label">Why:</span> ${h(hl.reason)}</p>` : ''}
${standingLine}
${meta.length ? `<dl class="meta">${meta.map(([k, v]) => `<div><dt>${h(k)}</dt><dd>${h(v)}</dd></div>`).join('')}</dl>` : ''}
</section>`;
}

const SEVERITY_WORDS = { error: 'Error', warning: 'Warning', information: 'Info', hint: 'Hint' } as const;

function findingItem(finding: ReportFinding, mode: Mode): string {
  const where = [
    finding.line !== undefined ? `line ${count(finding.line)}` : '',
    finding.tree !== undefined ? `tree ${count(finding.tree)}` : '',
    finding.node !== undefined ? `node ${count(finding.node)}` : '',
  ].filter(Boolean);
  return `<li class="finding sev-${h(finding.severity)}">
<span class="sev">${h(SEVERITY_WORDS[finding.severity])}</span>
<div class="finding-body">
<p class="finding-title">${link(finding.docsUrl, h(finding.title), mode)} <code class="rule">${h(finding.rule)}</code></p>
<p class="finding-message"><strong class="finding-summary">${h(messageSummary(finding.message))}</strong>${messageDetail(finding.message) ? ` ${h(messageDetail(finding.message))}` : ''}</p>
${where.length ? `<p class="where">${h(where.join(' · '))}</p>` : ''}
</div>
</li>`;
}

export function findings(report: PrivacyReport, mode: Mode): string {
  const list = report.findings.length
    ? `<ul class="findings">${report.findings.map((f) => findingItem(f, mode)).join('')}</ul>`
    : '<p class="empty">No findings.</p>';
  return `<section id="findings" class="card" aria-labelledby="findings-title">
<h2 id="findings-title">Findings <span class="count">${h(count(report.findings.length))}</span></h2>
${list}
</section>`;
}

export function features(report: PrivacyReport): string {
  if (noReconstruction(report)) return '';
  const proven = report.features.some((f) => f.determinedRows > 0);
  const body = proven
    ? `<p class="lede">In how many certified rows the model determines each feature's value. A feature no tree splits on is never determined: the model says nothing about it.</p>
<div class="chart-box" data-chart="features"><canvas id="chart-features" role="img" aria-label="Bar chart: share of the training rows whose value of each feature is proven; the table below has the same figures"></canvas></div>
<details class="table-details"${report.features.length <= 30 ? ' open' : ''}><summary>Table (${h(count(report.features.length))} features)</summary>
<table class="data"><thead><tr><th scope="col">Feature</th><th scope="col">Split on</th><th scope="col" class="num">Rows determined</th><th scope="col">Share of rows</th></tr></thead><tbody>
${report.features
  .map(
    (f) =>
      `<tr${f.used ? '' : ' class="unused"'}><th scope="row"><code>${h(f.name)}</code></th><td>${f.used ? 'yes' : 'no'}</td><td class="num">${h(count(f.determinedRows))}</td><td class="share">${shareBar(f.determinedShare, percent(f.determinedShare))}<span>${h(percent(f.determinedShare))}</span></td></tr>`,
  )
  .join('\n')}
</tbody></table></details>`
    : `<p class="empty">${
        report.headline.status === 'running'
          ? 'The reconstruction is running: the figures per feature appear when it ends.'
          : report.headline.claim === 'estimate'
          ? 'No feature value is proven: the reconstruction is an estimate.'
          : report.features.length
            ? 'No certified row: no feature value is proven.'
            : 'No reconstruction: nothing to show per feature.'
      }</p>`;
  return `<section id="features" class="card" aria-labelledby="features-title">
<h2 id="features-title">Recovery per feature</h2>
${inputColumns(report)}${body}
</section>`;
}

/**
 * A Pipeline's model reads scaled and one-hot columns; its user holds the raw ones. What the
 * certified rows prove per column of the Pipeline's input, in the column's own units.
 */
function inputColumns(report: PrivacyReport): string {
  const columns = report.inputColumns;
  if (!columns?.length) return '';
  const rows = report.headline.rows && report.headline.rows > 0 ? report.headline.rows : report.headline.reconstructedRows;
  const detail = (c: NonNullable<PrivacyReport['inputColumns']>[number]) => {
    if (c.kind === 'unread') return 'dropped before the model';
    if (c.kind === 'encoded') return c.provenRows > 0 ? `the category itself in ${count(c.provenRows)} rows${c.categories !== undefined ? ` (of ${count(c.categories)} categories)` : ''}` : 'never a single category';
    const bounded = c.provenRows - (c.missingRows ?? 0);
    const parts = [bounded > 0 && c.medianWidth !== undefined ? `both ends in ${count(bounded)} rows, median interval ${formatWidth(c.medianWidth)} wide` : 'one end at most'];
    if (c.missingRows) parts.push(`missing in ${count(c.missingRows)} rows`);
    return parts.join('; ');
  };
  return `<h3>In the Pipeline's input columns</h3>
<p class="lede">The certified rows carried back through the Pipeline's fitted steps to the columns it was fitted on, in their own units: in how many of them the box narrows each column's value, and how far (a numeric column's interval in its own units, a categorical column's single category).</p>
<details class="table-details"${columns.length <= 30 ? ' open' : ''}><summary>Table (${h(count(columns.length))} input columns)</summary>
<table class="data"><thead><tr><th scope="col">Column</th><th scope="col">Kind</th><th scope="col" class="num">Rows narrowed</th><th scope="col">Share of rows</th><th scope="col">How far</th></tr></thead><tbody>
${columns
  .map((c) => {
    const share = rows > 0 ? c.narrowedRows / rows : 0;
    return `<tr${c.kind === 'unread' ? ' class="unused"' : ''}><th scope="row"><code>${h(c.name)}</code></th><td>${c.kind === 'encoded' ? 'categorical' : c.kind}</td><td class="num">${h(count(c.narrowedRows))}</td><td class="share">${shareBar(share, percent(share))}<span>${h(percent(share))}</span></td><td>${h(detail(c))}</td></tr>`;
  })
  .join('\n')}
</tbody></table></details>
<h3>In the model's columns</h3>
`;
}

/** A width in a column's own units, to 3 significant digits (no exponent for everyday magnitudes). */
function formatWidth(width: number): string {
  if (width === 0) return '0';
  return Math.abs(width) >= 1e-3 && Math.abs(width) < 1e6 ? String(Number(width.toPrecision(3))) : width.toExponential(2);
}

/**
 * How tight the certified boxes of a numeric model are (`report.boxes`, `row-boxes` only): the
 * rows pinned to one leaf in every tree, the median width, and per numeric feature its median
 * width, narrowest (most revealing) first. Aggregates only: no row's values.
 */
export function boxes(report: PrivacyReport): string {
  const b = report.boxes;
  if (!b || noReconstruction(report)) return '';
  const features = [...b.features].sort((x, y) => x.medianWidth - y.medianWidth);
  const certified = report.headline.certifiedRows;
  const items: [string, string][] = [
    ['Rows certified as boxes', count(certified)],
    ...(b.rows !== certified ? [['Rows proven as boxes, labels estimated', count(b.rows - certified)] as [string, string]] : []),
    [report.model?.trees === 1 ? "Pinned to one leaf's region" : 'Pinned to one leaf in every tree', `${count(b.pinnedRows)} of ${count(b.rows)}`],
    ['Median box width', percent(b.medianWidth)],
  ];
  const table = features.length
    ? `<details class="table-details"${features.length <= 30 ? ' open' : ''}><summary>Table (${h(count(features.length))} numeric features, narrowest first)</summary>
<table class="data"><thead><tr><th scope="col">Feature</th><th scope="col">Median box width (share of the threshold range)</th></tr></thead><tbody>
${features
  .map((f) => `<tr><th scope="row"><code>${h(f.name)}</code></th><td class="share">${shareBar(f.medianWidth, `median box width ${percent(f.medianWidth)} of the threshold range`)}<span>${h(percent(f.medianWidth))}</span></td></tr>`)
  .join('\n')}
</tbody></table></details>`
    : '';
  return `<section id="boxes" class="card" aria-labelledby="boxes-title">
<h2 id="boxes-title">Certified boxes</h2>
<p class="lede">On numeric features the model proves an interval for each row's value, not the value: every certified row lies in a box (one interval per numeric feature)${report.model?.task === 'outlier-detection' ? '' : ' with its label'}. How much that reveals is the box's width, relative to the range the model's thresholds span on the feature: 100% does not narrow the feature at all, near 0% pins the value. A row pinned to one leaf in every tree has the narrowest box the model allows. The values shown for these rows are points chosen inside their boxes (estimates); <code>--emit-reconstruction</code> writes each box's ends.</p>
<dl class="meta">${items.map(([k, v]) => `<div><dt>${h(k)}</dt><dd>${h(v)}</dd></div>`).join('')}</dl>
${table}
</section>`;
}

export function rows(report: PrivacyReport, mode: Mode, valuesEmbedded: boolean): string {
  if (noReconstruction(report)) return '';
  const all = report.rows;
  if (all.length === 0) {
    return `<section id="rows" class="card" aria-labelledby="rows-title">
<h2 id="rows-title">Exposure per row</h2>
<p class="empty">${report.headline.status === 'running' ? 'The reconstruction is running: its rows appear when it ends.' : report.headline.claim === 'none' ? 'No rows were reconstructed.' : 'The rows of this reconstruction are not part of this report (only its summary was at hand).'}</p>
</section>`;
  }
  const shown = all.slice(0, ROW_TABLE_LIMIT);
  const certified = all.filter((r) => r.certified).length;
  const withIndex = all.some((r) => r.trainingIndex !== undefined);
  const table = `<table class="data"><thead><tr><th scope="col" class="num">Row</th>${withIndex ? '<th scope="col" class="num">Training index</th>' : ''}<th scope="col">Certified</th><th scope="col" class="num">Features determined</th><th scope="col">Share</th></tr></thead><tbody>
${shown
  .map((r) => {
    const share = r.features > 0 ? r.determinedFeatures / r.features : 0;
    return `<tr class="${r.certified ? 'certified' : 'uncertified'}"><td class="num">${h(count(r.row + 1))}</td>${withIndex ? `<td class="num">${r.trainingIndex === undefined ? '–' : h(count(r.trainingIndex))}</td>` : ''}<td>${r.certified ? '<span class="mark-certified">certified</span>' : '<span class="mark-estimate">estimate</span>'}</td><td class="num">${h(count(r.determinedFeatures))} / ${h(count(r.features))}</td><td class="share">${shareBar(share, percent(share), r.certified ? 'certified' : 'estimate')}</td></tr>`;
  })
  .join('\n')}
</tbody></table>${all.length > shown.length ? `<p class="note">The table lists the first ${h(count(shown.length))} of ${h(count(all.length))} rows; the map above shows all of them.</p>` : ''}`;
  const revealControls =
    mode === 'webview' || valuesEmbedded
      ? `<button type="button" id="reveal-button" class="danger">Reveal reconstructed values</button>`
      : `<p class="note" id="reveal-unavailable">The values are not in this file. To include them (still hidden until a click), run the CLI with <code>--report-values</code>.</p>`;
  return `<section id="rows" class="card" aria-labelledby="rows-title">
<h2 id="rows-title">Exposure per row</h2>
<p class="lede">${h(count(all.length))} reconstructed rows, ${h(count(certified))} certified. Each square is a row; the stronger its colour, the more of its features the model determines. Certified rows are solid, estimated rows hatched.</p>
<div class="heatmap-box"><canvas id="row-heatmap" role="img" aria-label="Map of the reconstructed rows by share of features determined; the table below has the same figures"></canvas></div>
<p class="legend" aria-hidden="true"><span class="swatch swatch-certified"></span> certified <span class="swatch swatch-estimate"></span> estimate <span class="swatch swatch-low"></span> few features determined <span class="swatch swatch-high"></span> all determined</p>
<details class="table-details"><summary>Table (${h(count(all.length))} rows)</summary>
${table}
</details>
<div class="reveal" id="reveal">
<h3>Reconstructed values</h3>
<p class="warning" role="note"><strong>Personal data.</strong> The values below are the training rows of real people, as far as the model determines them. Reveal them only if you are allowed to see the training data; do not copy them into tickets, chats or screenshots.</p>
${revealControls}
<div id="revealed-rows" class="revealed" hidden></div>
</div>
</section>`;
}

/** A finished run needs at least this long, and this many timeline points, for a progress chart. */
export const PROGRESS_CHART_MIN_MS = 1000;
export const PROGRESS_CHART_MIN_POINTS = 3;

/**
 * Whether the progress section draws its charts. A finished run of a few milliseconds would draw
 * empty axes: it gets a sentence and the phase table. A running one always draws (the editor
 * redraws it in place as it grows, html/live.ts), so the page has its canvases from the start.
 */
export function hasProgressChart(report: Pick<PrivacyReport, 'timeline' | 'headline'>): boolean {
  const t = report.timeline;
  if (t.length === 0) return false;
  if (report.headline.status === 'running') return true;
  return t.length >= PROGRESS_CHART_MIN_POINTS && t[t.length - 1].ms - t[0].ms >= PROGRESS_CHART_MIN_MS;
}

/** No reconstruction finished (skipped, failed, not run): nothing per feature, per row or over time to show. */
function noReconstruction(report: PrivacyReport): boolean {
  return !isMeasured(verdictOf(report.headline).verdict) && report.headline.status !== 'running' && report.headline.status !== 'timeout';
}

/** In place of the detail sections when no reconstruction finished: one sentence, not three empty cards. */
export function noDetails(report: PrivacyReport): string {
  if (!noReconstruction(report)) return '';
  return `<section id="details" class="card" aria-labelledby="details-title">
<h2 id="details-title">Details</h2>
<p class="empty">No reconstruction finished for this model, so there is nothing to show per feature, per row or over time.</p>
</section>`;
}

export function progress(report: PrivacyReport): string {
  if (noReconstruction(report)) return '';
  const phases = phaseRows(report.timeline);
  const running = report.headline.status === 'running';
  const phaseTable = `<details class="table-details"><summary id="phases-summary">${h(phaseSummary(phases.length))}</summary>
<table class="data"><thead><tr><th scope="col">Phase</th><th scope="col" class="num">From</th><th scope="col" class="num">To</th><th scope="col" class="num">Duration</th></tr></thead><tbody id="phases-body">
${phases.map(([phase, from, to, length]) => `<tr><th scope="row">${h(phase)}</th><td class="num">${h(from)}</td><td class="num">${h(to)}</td><td class="num">${h(length)}</td></tr>`).join('\n')}
</tbody></table></details>`;
  if (report.timeline.length && !hasProgressChart(report)) {
    const span = report.timeline[report.timeline.length - 1].ms - report.timeline[0].ms;
    return `<section id="progress" class="card" aria-labelledby="progress-title">
<h2 id="progress-title">Progress over time</h2>
<p class="empty">The reconstruction took ${h(milliseconds(span))}: too short for a progress chart.</p>
${phases.length ? phaseTable : ''}
</section>`;
  }
  // While the run goes on, the editor redraws the charts and the phase table in place (html/live.ts).
  const lede = running
    ? "The reconstruction is running: the engine's phases so far, redrawn as it reports. A solve by HiGHS reports nothing until it returns, and rows are certified at the end, so the row curve comes with the answer."
    : "Rows certified and reconstructed over the run, and the engine's phases. The engine certifies rows at the end of its work, so the curve rises when the answer is in.";
  const body = report.timeline.length
    ? `<p class="lede">${h(lede)}</p>
<div class="chart-box" data-chart="progress"><canvas id="chart-progress" role="img" aria-label="Line chart of certified and reconstructed rows over time, with the engine's phases; the table below lists the phases"></canvas></div>
<div class="chart-box chart-box-short" data-chart="phases"><canvas id="chart-phases" role="img" aria-label="Timeline of the engine's phases"></canvas></div>
${phaseTable}`
    : running
      ? '<p class="empty">The reconstruction is running; its progress appears here as the engine reports it.</p>'
      : '<p class="empty">No progress was recorded for this reconstruction.</p>';
  return `<section id="progress" class="card" aria-labelledby="progress-title">
<h2 id="progress-title">Progress over time</h2>
${body}
</section>`;
}

const TRUTH_WORDS: Record<AdvisorReport['truth'], string> = {
  'training-data': 'the true training data',
  'certified-reconstruction': "this model's certified reconstruction (exact, so it is the training set up to undetermined values)",
  none: 'nothing: only certified rows are compared',
};

function outcomeRow(o: RemedyOutcome, withAuc = false): string {
  // The membership AUC column only when candidates of known membership were given (issue 14).
  const auc = withAuc ? `<td class="num">${o.membershipAuc === undefined || o.membershipAuc === null ? '–' : h(o.membershipAuc.toFixed(3))}</td>` : '';
  return `<tr class="${o.kind === 'current' ? 'current' : 'scenario'}"><th scope="row">${h(o.label)}${o.simulation ? ' <span class="tag">simulation</span>' : ''}</th><td>${h(STATUS_WORDS[o.status] ?? o.status)}</td><td class="num">${h(count(o.certifiedRows))}</td><td class="num">${h(count(o.reconstructedRows))}</td><td class="num">${h(errorValue(o.error))}</td>${auc}<td>${o.noBetterThanBaseline === null ? '–' : o.noBetterThanBaseline ? 'no better than guessing' : 'better than guessing'}</td><td>${h(o.description)}</td></tr>`;
}

export function advisor(report: PrivacyReport): string {
  const a = report.advisor;
  // No answer: the advisor is off, cannot run, or is still queued (said in "What to do"): no section.
  if (!a) return '';
  const outcomes = [a.current, ...a.scenarios];
  const withAuc = outcomes.some((o) => o.membershipAuc !== undefined);
  return `<section id="advisor" class="card" aria-labelledby="advisor-title">
<h2 id="advisor-title">What if: remedies <span class="tag">simulation</span></h2>
<p class="lede">Each scenario retrains nothing: it simulates the remedy on this model and runs the reconstruction on the result. Errors are scored against ${h(TRUTH_WORDS[a.truth])}${a.errorMeasure === 'timberstrike' ? " as 1 − TimberStrike's reconstruction accuracy (numeric features: a value within 0.319 standard deviations of the true one is right)" : ''}${a.baselineError !== null ? `; ${a.errorMeasure === 'timberstrike' ? "rows whose values and label are each drawn from the data's columns" : 'random guessing'} scores ${h(errorValue(a.baselineError))}` : ''}. Higher error is better for privacy.</p>
${a.partial ? '<p class="note">The advisor stopped early (time budget or cancel): some scenarios are missing.</p>' : ''}
<div class="chart-box" data-chart="advisor"><canvas id="chart-advisor" role="img" aria-label="Bar chart of the reconstruction error per scenario against the random-guess baseline; the table below has the same figures"></canvas></div>
<details class="table-details"><summary>Table (${h(count(outcomes.length))} scenarios)</summary>
<table class="data"><thead><tr><th scope="col">Scenario</th><th scope="col">Status</th><th scope="col" class="num">Certified</th><th scope="col" class="num">Reconstructed</th><th scope="col" class="num">Error</th>${withAuc ? '<th scope="col" class="num">Membership AUC</th>' : ''}<th scope="col">Against the baseline</th><th scope="col">How it was simulated</th></tr></thead><tbody>
${outcomes.map((o) => outcomeRow(o, withAuc)).join('\n')}
</tbody></table></details>
<p class="note">Advisor time: ${h(duration(a.seconds))}.</p>
</section>`;
}

export function evaluation(report: PrivacyReport): string {
  const e = report.evaluation;
  if (!e) return '';
  const share = (v: number | null) => (v === null ? '–' : percent(v));
  const items: [string, string][] = [
    ['Training data', e.trainingData],
    ['Columns matched by', e.matchedBy ? `${e.matchedBy}${e.throughPipeline ? ", through the Pipeline's fitted steps" : ''}` : '–'],
    ['True rows compared', count(e.rowsCompared)],
    ['Rows reconstructed', count(e.reconstructedRows)],
    ['Error after matching', errorValue(e.error)],
    ['Random baseline', errorValue(e.randomBaseline)],
    ['Reconstruction accuracy (TimberStrike)', e.accuracy ? `${percent(e.accuracy.all)}${e.accuracy.matching === 'nearest' ? ` (${e.accuracy.sampled} sampled true rows, each against its nearest reconstructed row: an upper bound)` : ''}` : '–'],
    [`Accuracy on the top features${e.accuracy ? ` (${e.accuracy.top.features.join(', ')}, label)` : ''}`, e.accuracy ? percent(e.accuracy.top.accuracy) : '–'],
    ['Perfect rows', share(e.perfectRows)],
    ['Consistent rows (determined values right)', share(e.consistentRows)],
    ['Values left undetermined', share(e.undeterminedValues)],
    ...(e.certifiedCheck ? [['Proven rows checked against the truth', certifiedCheckText(e.certifiedCheck)] as [string, string]] : []),
  ];
  return `<section id="evaluation" class="card" aria-labelledby="evaluation-title">
<h2 id="evaluation-title">Evaluation against the true training data</h2>
<dl class="meta wide">${items.map(([k, v]) => `<div><dt>${h(k)}</dt><dd>${h(v)}</dd></div>`).join('')}</dl>
${e.problem ? `<p class="reason"><span class="label">Problem:</span> ${h(e.problem)}</p>` : ''}
</section>`;
}

export function scriptPath(uri: string): string {
  try {
    const url = new URL(uri);
    return url.protocol === 'file:' ? decodeURIComponent(url.pathname) : uri;
  } catch {
    return uri;
  }
}

export function scripts(report: PrivacyReport, mode: Mode): string {
  if (!report.scripts.length) return '';
  const item = (s: ScriptReference) => {
    const where = `${scriptPath(s.uri)}${s.cell !== undefined ? ` cell ${s.cell + 1}` : ''}:${s.line + 1}`;
    return `<li><span class="tag">${s.role === 'save' ? 'saves' : 'builds'}</span> ${link(s.uri, `<code>${h(where)}</code>`, mode, ` data-line="${h(s.line)}"${s.cell !== undefined ? ` data-cell="${h(s.cell)}"` : ''}`)}<pre><code>${h(s.text)}</code></pre></li>`;
  };
  return `<section id="scripts" class="card" aria-labelledby="scripts-title">
<h2 id="scripts-title">Training scripts</h2>
<ul class="scripts">${report.scripts.map(item).join('')}</ul>
</section>`;
}

export function notes(report: PrivacyReport): string {
  if (!report.notes.length) return '';
  return `<section id="notes" class="card" aria-labelledby="notes-title">
<h2 id="notes-title">Notes</h2>
<ul class="notes">${report.notes.map((n) => `<li>${h(n)}</li>`).join('')}</ul>
</section>`;
}

export function footer(report: PrivacyReport): string {
  return `<footer class="report-footer"><p>${h(report.tool.name)} ${h(report.tool.version)} &middot; generated ${h(report.generatedAt)} &middot; sha256 <code>${h(report.file.contentHash.slice(0, 16) || '–')}</code></p></footer>`;
}
