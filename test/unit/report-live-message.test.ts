/**
 * The webview's live timeline update (report/html/live.ts) on reports of a real running
 * reconstruction (test/support/running-report.ts): between two reports of the same run that
 * differ only in the timeline, the message carries the newer timeline, and the phase table it
 * brings is exactly the one the renderer writes for the newer report; any other change (the run
 * ended, other findings, no chart on the page yet) asks for a whole new page. No values in it.
 */
import { strict as assert } from 'node:assert';
import { before, describe, it } from 'node:test';
import { renderReportHtml, timelineMessage } from '../../server/src/report/html';
import type { PrivacyReport } from '../../server/src/report/model';
import { runningReports, type RunningReports } from '../support/running-report';
import { TEST_WEBVIEW } from '../support/webview-render-options';

const unescape = (text: string) => text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))).replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"');

/** The phase table as the renderer wrote it: summary and rows of text. */
function renderedPhases(report: PrivacyReport): { summary: string; rows: string[][] } {
  const html = renderReportHtml(report, TEST_WEBVIEW);
  const summary = /<summary id="phases-summary">([^<]*)<\/summary>/.exec(html)?.[1];
  const body = /<tbody id="phases-body">([\s\S]*?)<\/tbody>/.exec(html)?.[1];
  assert.ok(summary !== undefined && body !== undefined, 'the page has the phase table');
  const rows = [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) => [...row[1].matchAll(/<t[hd][^>]*>([^<]*)<\/t[hd]>/g)].map((cell) => unescape(cell[1])));
  return { summary: unescape(summary), rows };
}

describe('timelineMessage on a real running reconstruction', () => {
  let run: RunningReports;
  before(async () => {
    run = await runningReports(2000);
  });

  it('the running reports are a real run\'s: several phases, status running, no rows yet', () => {
    assert.ok(run.running.length >= 3, `${run.running.length} phase changes`);
    for (const report of run.running) {
      assert.equal(report.headline.status, 'running');
      assert.deepEqual(report.rows, []);
    }
    assert.notEqual(run.final.headline.status, 'running');
  });

  it('a longer timeline of the same run: a message whose phase table is the rendered one', () => {
    for (let i = 1; i < run.running.length; i++) {
      const shown = run.running[i - 1];
      const next = run.running[i];
      const message = timelineMessage(shown, next);
      assert.ok(message, `update ${i}`);
      assert.deepEqual(Object.keys(message).sort(), ['phases', 'summary', 'timeline', 'type'], 'phases and times only');
      assert.equal(message.type, 'timeline');
      assert.deepEqual(message.timeline, next.timeline);
      const rendered = renderedPhases(next);
      assert.equal(message.summary, rendered.summary);
      assert.deepEqual(message.phases, rendered.rows);
      assert.ok(message.phases.length >= renderedPhases(shown).rows.length, 'phases are only added');
    }
  });

  it('anything else renders the page again', () => {
    const last = run.running.at(-1)!;
    assert.equal(timelineMessage(last, run.final), undefined, 'the run ended: the figures are in');
    assert.equal(timelineMessage(run.final, last), undefined, 'a new run after a finished one');
    assert.equal(timelineMessage({ ...run.running[0], timeline: [] }, last), undefined, 'the page has no chart yet');
    assert.equal(timelineMessage(run.running[0], { ...last, findings: [] }), undefined, 'other findings');
    assert.equal(timelineMessage(run.running[0], { ...last, notes: ['a note'] }), undefined, 'other notes');
  });
});
