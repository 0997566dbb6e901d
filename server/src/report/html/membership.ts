/**
 * The report's membership section (CLI `--membership`, issue 14): how many candidates the model
 * proves members or non-members, how many are only likely either way, the score distribution as a
 * table of deciles with a <meter> each (readable without JavaScript, no inline style, which the
 * page's CSP forbids), and with the truth the metrics beside the paper's attack. Never a row.
 */
import type { PrivacyReport } from '../model';
import { escapeHtml as h } from './escape';
import { count, percent } from './format';

export function membershipSection(report: PrivacyReport): string {
  const m = report.membership;
  if (!m) return '';
  if (m.problem) {
    return `<section id="membership" class="card" aria-labelledby="membership-title">
<h2 id="membership-title">Membership</h2>
<p class="reason"><span class="label">Problem:</span> ${h(m.candidates)} was not used: ${h(m.problem)}</p>
</section>`;
  }
  const v = m.verdicts;
  const verdictRows: [string, number, string][] = [
    ['Member (proven)', v.member, 'a training row with this label and the candidate\'s values on every feature the model splits on: the same leaf in every tree'],
    ['Non-member (proven)', v.nonMember, 'no training row has this label and these values up to the model\'s splits'],
    ['Likely member', v.likelyMember, `score at or above ${m.threshold ?? '–'}: a guess${m.inProvenCells ? ` (of the candidates, ${count(m.inProvenCells)} lie in a cell proven to hold a training row of their label that does not pin their values)` : ''}`],
    ['Likely non-member', v.likelyNonMember, `score below ${m.threshold ?? '–'}: a guess`],
    ['Unknown', v.unknown, 'the model gives nothing to score'],
  ];
  const top = Math.max(1, ...m.histogram);
  const bins = m.histogram
    .map((n, i) => `<tr><th scope="row">${h((i / 10).toFixed(1))}–${h(((i + 1) / 10).toFixed(1))}</th><td class="num">${h(count(n))}</td><td><meter min="0" max="${h(top)}" value="${h(n)}" aria-label="${h(count(n))} candidates"></meter></td></tr>`)
    .join('\n');
  const share = (x: number | null | undefined) => (x === null || x === undefined ? '–' : percent(x));
  const auc = (x: number | null | undefined) => (x === null || x === undefined ? '–' : x.toFixed(3));
  let metrics = '';
  if (m.metrics) {
    const c = m.comparison;
    const paper = c && !('reason' in c.paper) ? c.paper : undefined;
    metrics = `<table class="data"><caption>Against ${h(m.metrics.membersColumn)} (${h(count(m.metrics.members))} members, ${h(count(m.metrics.nonMembers))} non-members)</caption>
<thead><tr><th scope="col">Attack</th><th scope="col">Candidates</th><th scope="col" class="num">AUC</th><th scope="col" class="num">Accuracy</th><th scope="col" class="num">TPR at 1% FPR</th></tr></thead><tbody>
<tr><th scope="row">This model's counts</th><td>all ${h(count(m.rows))}</td><td class="num">${h(auc(m.metrics.auc))}</td><td class="num">${h(share(m.metrics.accuracy))}</td><td class="num">${h(share(m.metrics.tprAt1Fpr))}</td></tr>
${c ? `<tr><th scope="row">This model's counts</th><td>held-out ${h(count(c.heldOut))}</td><td class="num">${h(auc(c.ours.auc))}</td><td class="num">${h(share(c.ours.accuracy))}</td><td class="num">${h(share(c.ours.tprAt1Fpr))}</td></tr>` : ''}
${c ? `<tr><th scope="row">Range distances (the paper)</th><td>held-out ${h(count(c.heldOut))}</td>${paper ? `<td class="num">${h(auc(paper.auc))}</td><td class="num">${h(share(paper.accuracy))}</td><td class="num">${h(share(paper.tprAt1Fpr))}</td>` : `<td colspan="3">${h('reason' in c.paper ? c.paper.reason : '')}</td>`}</tr>` : ''}
</tbody></table>
<p class="note">Proven verdicts the truth contradicts: ${h(count(m.metrics.provenWrong))}; proven members that are non-members sharing a member's cell and label (the model cannot tell them apart): ${h(count(m.metrics.twins))}.</p>`;
  }
  return `<section id="membership" class="card" aria-labelledby="membership-title">
<h2 id="membership-title">Membership <span class="tag">${h(m.basis ?? '')}</span></h2>
<p>${h(count(m.rows))} candidates from <code>${h(m.candidates)}</code> (columns matched by ${h(m.matchedBy ?? '–')}${m.throughPipeline ? ", through the Pipeline's fitted steps" : ''}).${m.reason ? ` ${h(m.reason)}.` : ''}</p>
<table class="data"><thead><tr><th scope="col">Verdict</th><th scope="col" class="num">Candidates</th><th scope="col">Meaning</th></tr></thead><tbody>
${verdictRows.map(([name, n, meaning]) => `<tr><th scope="row">${h(name)}</th><td class="num">${h(count(n))}</td><td>${h(meaning)}</td></tr>`).join('\n')}
</tbody></table>
${m.missingValues ? `<p class="note">${h(count(m.missingValues))} candidates miss a value the model splits on: each follows the split's direction for a missing value, and is scored, never proven.</p>\n` : ''}<table class="data"><caption>Scores (higher: more likely a member)</caption><thead><tr><th scope="col">Score</th><th scope="col" class="num">Candidates</th><th scope="col">Share</th></tr></thead><tbody>
${bins}
</tbody></table>
${metrics}
</section>`;
}
