/**
 * The report's "What to do" section, right under the headline: the advisor's most effective
 * remedy (and its other advice), and the training-script lines where the model is built, which is
 * where a remedy is applied. Absent when there is nothing to do yet: no advisor answer, none
 * queued, no script found. Pure, like the rest of html/.
 */
import type { AdvisorReport, PrivacyReport, Recommendation, RemedyOutcome, ScriptReference } from '../model';
import { escapeHtml as h } from './escape';
import { link, scriptPath, type Mode } from './sections';

/** The simulated outcome a recommendation stands on: the scenario of its kind (and setting). */
function outcomeOf(advisor: AdvisorReport, r: Recommendation): RemedyOutcome | undefined {
  return advisor.scenarios.find((s) => s.kind === r.kind && (r.parameter === undefined || s.parameter === r.parameter));
}

/**
 * How well a recommendation's remedy worked in simulation: 2 when the reconstruction is no better
 * than guessing, 1 when it certifies no row, 0 otherwise. A recommendation without a setting for
 * differential privacy or leaves says that no tested setting worked: 0.
 */
function effect(advisor: AdvisorReport, r: Recommendation): number {
  if (r.parameter === undefined && r.kind !== 'bootstrap-without-seeds') return 0;
  const o = outcomeOf(advisor, r);
  if (!o) return 0;
  if (o.noBetterThanBaseline === true) return 2;
  return o.certifiedRows === 0 && (o.status === 'exact' || o.status === 'bounded') ? 1 : 0;
}

/**
 * The advisor's recommendations, most effective first (by `effect`, then the higher simulated
 * error, then the advisor's order), and whether the first one worked at all.
 */
export function rankRecommendations(advisor: AdvisorReport): { ranked: Recommendation[]; effective: boolean } {
  const scored = advisor.recommendations.map((r, i) => ({ r, i, effect: effect(advisor, r), error: outcomeOf(advisor, r)?.error ?? -1 }));
  scored.sort((a, b) => b.effect - a.effect || b.error - a.error || a.i - b.i);
  return { ranked: scored.map((s) => s.r), effective: scored.length > 0 && scored[0].effect > 0 };
}

function scriptLine(s: ScriptReference, mode: Mode): string {
  const where = `${scriptPath(s.uri)}${s.cell !== undefined ? ` cell ${s.cell + 1}` : ''}:${s.line + 1}`;
  return `<li>${link(s.uri, `<code>${h(where)}</code>`, mode, ` data-line="${h(s.line)}"${s.cell !== undefined ? ` data-cell="${h(s.cell)}"` : ''}`)}<pre><code>${h(s.text)}</code></pre></li>`;
}

export function actions(report: PrivacyReport, mode: Mode): string {
  const parts: string[] = [];
  const a = report.advisor;
  if (a && a.recommendations.length) {
    const { ranked, effective } = rankRecommendations(a);
    const [best, ...others] = ranked;
    parts.push(
      effective
        ? `<p class="best"><span class="label">Most effective remedy</span> <span class="tag">simulation</span></p>\n<p class="best-text">${h(best.text)}</p>`
        : `<p class="best"><span class="label">No simulated remedy stopped the reconstruction</span> <span class="tag">simulation</span></p>\n<p class="best-text">${h(best.text)}</p>`,
    );
    if (others.length) parts.push(`<p class="label">Other remedies simulated</p>\n<ul class="recommendations">${others.map((r) => `<li>${h(r.text)}</li>`).join('')}</ul>`);
    parts.push('<p class="note"><a href="#advisor">Every simulated scenario</a> is in the what-if section below.</p>');
  } else if (a) {
    parts.push('<p class="note">The what-if advisor simulated the remedies but has no advice from them: see <a href="#advisor">the scenarios</a>.</p>');
  } else if (report.advisorPending) {
    parts.push(
      `<p class="empty">${
        report.advisorPending === 'running'
          ? 'The what-if advisor is simulating the remedies; the most effective one appears here when it ends.'
          : 'The what-if advisor is queued: it simulates the remedies when the reconstruction ends, and the most effective one appears here.'
      }</p>`,
    );
  }
  const estimators = report.scripts.filter((s) => s.role === 'estimator');
  const lines = estimators.length ? estimators : report.scripts;
  if (lines.length) {
    parts.push(`<h3>In the training script</h3>
<p class="lede">${estimators.length ? 'Where the model is built: apply the remedy there, then train and save the model again.' : 'Where the model is saved: the remedy goes where it is built, before this line; then train and save it again.'}${mode === 'webview' ? ' The quick fixes the editor offers for these lines are in their light bulb.' : ''}</p>
<ul class="scripts">${lines.map((s) => scriptLine(s, mode)).join('')}</ul>`);
  }
  if (!parts.length) return '';
  return `<section id="actions" class="card actions" aria-labelledby="actions-title">
<h2 id="actions-title">What to do</h2>
${parts.join('\n')}
</section>`;
}
