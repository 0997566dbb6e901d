// The privacy report's script (webview and standalone HTML): charts (Chart.js 4), the row
// heatmap, the reveal of the values, and link handling in the webview. In the webview, a running
// reconstruction's timeline arrives as messages ({type: 'timeline'}, server/src/report/html/live.ts)
// and redraws the progress charts in place, and the scroll position survives a new rendering.
//
// The report data is untrusted text (feature names come from model files): it is read from the
// JSON block and only ever put into the page with textContent and DOM APIs, never innerHTML.
// Chart.js draws on canvases (text is painted, not parsed).
(function () {
  'use strict';

  var body = document.body;
  var mode = body.getAttribute('data-mode') === 'webview' ? 'webview' : 'standalone';
  var vscode = mode === 'webview' && typeof acquireVsCodeApi === 'function' ? acquireVsCodeApi() : undefined;
  var report = readJson('report-data');
  if (!report) return;

  var REVEAL_TABLE_LIMIT = 2000;
  var FEATURE_CHART_LIMIT = 40;
  var charts = [];
  // The progress and phase charts, redrawn on their own when a running reconstruction's timeline grows.
  var timelineCharts = [];
  // A live redraw about once a second: no entry animation, which would make the charts pulse.
  var redrawing = false;
  var hasChart = typeof Chart === 'function';
  if (!hasChart) body.classList.add('no-charts');

  function readJson(id) {
    var element = document.getElementById(id);
    if (!element) return undefined;
    try {
      return JSON.parse(element.textContent || '');
    } catch (error) {
      console.error('model-privacy-lint report: cannot read ' + id, error);
      return undefined;
    }
  }

  function cssVar(name, fallback) {
    var value = getComputedStyle(body).getPropertyValue(name).trim();
    return value || fallback;
  }

  function palette() {
    return {
      fg: cssVar('--mpl-chart-fg', '#444'),
      muted: cssVar('--mpl-muted', '#888'),
      lines: cssVar('--mpl-chart-lines', '#ccc'),
      certified: cssVar('--mpl-certified', '#d33'),
      estimate: cssVar('--mpl-estimate', '#e80'),
      reconstructed: cssVar('--mpl-reconstructed', '#36c'),
      baseline: cssVar('--mpl-baseline', '#83c'),
      safe: cssVar('--mpl-safe', '#2a2'),
      series: ['--mpl-chart-blue', '--mpl-chart-purple', '--mpl-chart-green', '--mpl-chart-yellow', '--mpl-chart-orange', '--mpl-chart-red'].map(function (name) {
        return cssVar(name, '#888');
      }),
      font: cssVar('--vscode-font-family', '') || getComputedStyle(body).fontFamily,
    };
  }

  // A colour with alpha, from any CSS colour the theme gives (hex, rgb(), names).
  var probe = document.createElement('canvas').getContext('2d');
  function withAlpha(color, alpha) {
    probe.fillStyle = '#000';
    probe.fillStyle = color;
    var c = probe.fillStyle; // normalised: #rrggbb or rgba(...)
    if (c.charAt(0) === '#') {
      var r = parseInt(c.slice(1, 3), 16), g = parseInt(c.slice(3, 5), 16), b = parseInt(c.slice(5, 7), 16);
      return 'rgba(' + r + ',' + g + ',' + b + ',' + alpha + ')';
    }
    return c.replace(/rgba?\(([^,]+),([^,]+),([^,)]+)(,[^)]*)?\)/, 'rgba($1,$2,$3,' + alpha + ')');
  }

  var reducedMotion = window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;

  function percent(share) {
    return (Math.round(share * 1000) / 10) + '%';
  }
  function seconds(ms) {
    return ms < 1000 ? Math.round(ms) + ' ms' : (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + ' s';
  }

  // ---- Charts ---------------------------------------------------------------------------------

  function baseOptions(p) {
    return {
      responsive: true,
      maintainAspectRatio: false,
      animation: reducedMotion || redrawing ? false : { duration: 400 },
      plugins: { legend: { labels: { color: p.fg, boxWidth: 14 } }, tooltip: {} },
    };
  }

  function axis(p, title, extra) {
    var a = { ticks: { color: p.fg }, grid: { color: withAlpha(p.lines, 0.5) }, border: { color: p.lines } };
    if (title) a.title = { display: true, text: title, color: p.muted };
    for (var key in extra) a[key] = extra[key];
    return a;
  }

  function featureChart(p) {
    var canvas = document.getElementById('chart-features');
    if (!canvas || !report.features.length) return;
    var features = report.features.slice().sort(function (a, b) {
      return b.determinedShare - a.determinedShare;
    }).slice(0, FEATURE_CHART_LIMIT);
    canvas.parentElement.style.height = Math.max(160, features.length * 22 + 70) + 'px';
    if (report.features.length > features.length) {
      canvas.setAttribute('aria-label', canvas.getAttribute('aria-label') + ' (the ' + features.length + ' most determined features)');
    }
    charts.push(new Chart(canvas, {
      type: 'bar',
      data: {
        labels: features.map(function (f) { return f.name; }),
        datasets: [{
          label: 'Rows whose value is proven (share of the training rows)',
          data: features.map(function (f) { return f.determinedShare * 100; }),
          backgroundColor: features.map(function (f) { return f.used ? withAlpha(p.certified, 0.75) : withAlpha(p.muted, 0.4); }),
          borderColor: p.certified,
          borderWidth: 0,
          borderRadius: 3,
        }],
      },
      options: merge(baseOptions(p), {
        indexAxis: 'y',
        scales: {
          x: axis(p, '% of the training rows', { min: 0, max: 100 }),
          y: axis(p, '', { grid: { display: false } }),
        },
        plugins: {
          legend: { display: false },
          tooltip: {
            callbacks: {
              label: function (context) {
                var f = features[context.dataIndex];
                return f.determinedRows + ' rows (' + percent(f.determinedShare) + ')' + (f.used ? '' : ', never split on');
              },
            },
          },
        },
      }),
    }));
  }

  function progressChart(p) {
    var canvas = document.getElementById('chart-progress');
    var timeline = report.timeline;
    if (!canvas || !timeline.length) return;
    var points = function (key) {
      return timeline.filter(function (t) { return typeof t[key] === 'number'; }).map(function (t) { return { x: t.ms / 1000, y: t[key] }; });
    };
    var datasets = [
      { label: 'Certified rows', data: points('certifiedRows'), borderColor: p.certified, backgroundColor: withAlpha(p.certified, 0.15), fill: true, stepped: 'before', borderWidth: 2, pointRadius: 3, yAxisID: 'rows' },
      { label: 'Reconstructed rows', data: points('reconstructedRows'), borderColor: p.reconstructed, backgroundColor: p.reconstructed, stepped: 'before', borderDash: [6, 4], borderWidth: 2, pointRadius: 3, yAxisID: 'rows' },
    ];
    var cells = points('cells');
    if (cells.length) datasets.push({ label: 'Cells found', data: cells, borderColor: withAlpha(p.series[2], 0.9), backgroundColor: p.series[2], borderWidth: 1.5, pointRadius: 0, yAxisID: 'cells' });
    var scales = {
      x: axis(p, 'seconds since the start', { type: 'linear', min: 0 }),
      rows: axis(p, 'rows', { type: 'linear', position: 'left', beginAtZero: true, suggestedMax: report.headline.rows || undefined }),
    };
    if (cells.length) scales.cells = axis(p, 'cells', { type: 'linear', position: 'right', beginAtZero: true, grid: { drawOnChartArea: false } });
    charts.push(new Chart(canvas, {
      type: 'line',
      data: { datasets: datasets },
      options: merge(baseOptions(p), { scales: scales, interaction: { mode: 'nearest', intersect: false } }),
    }));
  }

  function phaseRuns(timeline) {
    var runs = [];
    timeline.forEach(function (point) {
      var last = runs[runs.length - 1];
      if (last) last.to = point.ms;
      if (point.phase === 'start' || point.phase === 'done') return;
      if (!last || last.phase !== point.phase) runs.push({ phase: point.phase, from: point.ms, to: point.ms });
    });
    return runs;
  }

  function phaseChart(p) {
    var canvas = document.getElementById('chart-phases');
    if (!canvas) return;
    var runs = phaseRuns(report.timeline);
    canvas.parentElement.hidden = !runs.length;
    if (!runs.length) return;
    var phases = [];
    runs.forEach(function (run) { if (phases.indexOf(run.phase) < 0) phases.push(run.phase); });
    var end = report.timeline[report.timeline.length - 1].ms / 1000;
    charts.push(new Chart(canvas, {
      type: 'bar',
      data: {
        labels: ['phases'],
        datasets: phases.map(function (phase, i) {
          return {
            label: phase,
            // Floating bars: one [from, to] per run of the phase, all on the one row.
            data: runs.filter(function (r) { return r.phase === phase; }).map(function (r) { return { x: [r.from / 1000, Math.max(r.to, r.from + 1) / 1000], y: 'phases' }; }),
            backgroundColor: withAlpha(p.series[i % p.series.length], 0.75),
            borderWidth: 0,
            grouped: false,
            barPercentage: 1,
            categoryPercentage: 0.9,
          };
        }),
      },
      options: merge(baseOptions(p), {
        indexAxis: 'y',
        scales: { x: axis(p, '', { type: 'linear', min: 0, max: end || undefined }), y: axis(p, '', { display: false }) },
        plugins: { legend: { position: 'bottom', labels: { color: p.fg, boxWidth: 12 } } },
      }),
    }));
  }

  function advisorChart(p) {
    var canvas = document.getElementById('chart-advisor');
    var advisor = report.advisor;
    if (!canvas || !advisor) return;
    var outcomes = [advisor.current].concat(advisor.scenarios);
    var byError = outcomes.some(function (o) { return typeof o.error === 'number'; });
    var labels = outcomes.map(function (o) { return o.label; });
    var datasets = [{
      type: 'bar',
      label: byError ? (advisor.errorMeasure === 'timberstrike' ? 'Reconstruction error, 1 - RA (higher is more private)' : 'Reconstruction error (higher is more private)') : 'Certified rows',
      data: outcomes.map(function (o) { return byError ? o.error : o.certifiedRows; }),
      backgroundColor: outcomes.map(function (o) {
        if (o.kind === 'current') return withAlpha(p.certified, 0.8);
        return o.noBetterThanBaseline ? withAlpha(p.safe, 0.75) : withAlpha(p.estimate, 0.75);
      }),
      borderRadius: 3,
      order: 2,
    }];
    if (byError && typeof advisor.baselineError === 'number') {
      datasets.push({
        type: 'line',
        label: advisor.errorMeasure === 'timberstrike' ? 'Column-guess baseline' : 'Random-guess baseline',
        data: outcomes.map(function () { return advisor.baselineError; }),
        borderColor: p.baseline,
        borderDash: [6, 4],
        borderWidth: 2,
        pointRadius: 0,
        fill: false,
        order: 1,
      });
    }
    charts.push(new Chart(canvas, {
      type: 'bar',
      data: { labels: labels, datasets: datasets },
      options: merge(baseOptions(p), {
        scales: {
          x: axis(p, 'scenario (simulations; the first bar is the model as it is)', { grid: { display: false } }),
          y: axis(p, byError ? 'mean error after matching' : 'rows', { beginAtZero: true }),
        },
      }),
    }));
  }

  function merge(target, extra) {
    for (var key in extra) {
      if (extra[key] && typeof extra[key] === 'object' && !Array.isArray(extra[key]) && target[key] && typeof target[key] === 'object') merge(target[key], extra[key]);
      else target[key] = extra[key];
    }
    return target;
  }

  // ---- Row heatmap --------------------------------------------------------------------------

  var CELL = 12, GAP = 2;
  function heatmap(p) {
    var canvas = document.getElementById('row-heatmap');
    if (!canvas || !report.rows.length) return;
    var rows = report.rows;
    var width = Math.max(CELL + GAP, canvas.parentElement.clientWidth || 600);
    var columns = Math.max(1, Math.floor((width + GAP) / (CELL + GAP)));
    var lines = Math.ceil(rows.length / columns);
    var ratio = window.devicePixelRatio || 1;
    var cssWidth = Math.min(width, columns * (CELL + GAP) - GAP);
    var cssHeight = lines * (CELL + GAP) - GAP;
    canvas.style.width = cssWidth + 'px';
    canvas.style.height = cssHeight + 'px';
    canvas.width = Math.round(cssWidth * ratio);
    canvas.height = Math.round(cssHeight * ratio);
    var ctx = canvas.getContext('2d');
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, cssWidth, cssHeight);
    rows.forEach(function (row, i) {
      var x = (i % columns) * (CELL + GAP), y = Math.floor(i / columns) * (CELL + GAP);
      var share = row.features > 0 ? row.determinedFeatures / row.features : 0;
      ctx.fillStyle = withAlpha(p.lines, 0.35);
      ctx.fillRect(x, y, CELL, CELL);
      var color = row.certified ? p.certified : p.estimate;
      ctx.fillStyle = withAlpha(color, 0.15 + 0.85 * share);
      if (row.certified) {
        ctx.fillRect(x, y, CELL, CELL);
      } else {
        ctx.save();
        ctx.beginPath();
        ctx.rect(x, y, CELL, CELL);
        ctx.clip();
        ctx.strokeStyle = withAlpha(color, 0.3 + 0.7 * share);
        ctx.lineWidth = 2;
        for (var d = -CELL; d < CELL; d += 4) {
          ctx.beginPath();
          ctx.moveTo(x + d, y + CELL);
          ctx.lineTo(x + d + CELL, y);
          ctx.stroke();
        }
        ctx.restore();
      }
    });
    canvas.onmousemove = function (event) {
      var rect = canvas.getBoundingClientRect();
      var col = Math.floor((event.clientX - rect.left) / (CELL + GAP));
      var line = Math.floor((event.clientY - rect.top) / (CELL + GAP));
      var row = col < columns ? rows[line * columns + col] : undefined;
      canvas.title = row
        ? 'Row ' + (row.row + 1) + (row.trainingIndex !== undefined ? ' (training row ' + row.trainingIndex + ')' : '') + ': ' + row.determinedFeatures + ' of ' + row.features + ' features determined, ' + (row.certified ? 'certified' : 'estimate')
        : '';
    };
  }

  // ---- Drawing and theme changes -----------------------------------------------------------

  function drawAll() {
    var p = palette();
    charts.forEach(function (chart) { chart.destroy(); });
    charts = [];
    timelineCharts = [];
    if (hasChart) {
      Chart.defaults.color = p.fg;
      Chart.defaults.borderColor = withAlpha(p.lines, 0.5);
      if (p.font) Chart.defaults.font.family = p.font;
      [featureChart, progressChart, phaseChart, advisorChart].forEach(function (draw) {
        drawChart(draw, p);
      });
    }
    heatmap(p);
    body.setAttribute('data-charts', String(charts.length));
  }

  function drawChart(draw, p) {
    var before = charts.length;
    try {
      draw(p);
    } catch (error) {
      console.error('model-privacy-lint report: a chart failed', error);
    }
    if (draw === progressChart || draw === phaseChart) timelineCharts = timelineCharts.concat(charts.slice(before));
  }

  // A longer timeline of the running reconstruction: the two charts drawn again (destroyed and
  // made in the same task, so the page never paints them empty), and the phase table's rows.
  function updateTimeline(message) {
    if (!Array.isArray(message.timeline) || !Array.isArray(message.phases)) return;
    report.timeline = message.timeline;
    if (hasChart) {
      var p = palette();
      timelineCharts.forEach(function (chart) {
        chart.destroy();
        charts.splice(charts.indexOf(chart), 1);
      });
      timelineCharts = [];
      redrawing = true;
      try {
        drawChart(progressChart, p);
        drawChart(phaseChart, p);
      } finally {
        redrawing = false;
      }
      body.setAttribute('data-charts', String(charts.length));
    }
    var summary = document.getElementById('phases-summary');
    if (summary) summary.textContent = String(message.summary);
    var rows = document.getElementById('phases-body');
    if (!rows) return;
    while (rows.firstChild) rows.removeChild(rows.firstChild);
    message.phases.forEach(function (phase) {
      var tr = rows.insertRow();
      var th = tr.appendChild(cell('th', String(phase[0])));
      th.setAttribute('scope', 'row');
      for (var i = 1; i < 4; i++) tr.appendChild(cell('td', String(phase[i]), 'num'));
    });
  }

  drawAll();
  // Whole-page renderings (the run ended, findings changed) keep the reader's place: the webview's
  // state outlives its page.
  if (vscode) {
    var saved = vscode.getState();
    if (saved && typeof saved.scrollY === 'number') window.scrollTo(0, saved.scrollY);
    var scrollTimer;
    window.addEventListener('scroll', function () {
      clearTimeout(scrollTimer);
      scrollTimer = setTimeout(function () {
        vscode.setState({ scrollY: window.scrollY });
      }, 150);
    });
  }
  // VS Code swaps the body's theme classes (vscode-light / vscode-dark / vscode-high-contrast).
  new MutationObserver(drawAll).observe(body, { attributes: true, attributeFilter: ['class'] });
  if (window.matchMedia) {
    var scheme = window.matchMedia('(prefers-color-scheme: dark)');
    if (scheme.addEventListener) scheme.addEventListener('change', drawAll);
  }
  var resizeTimer;
  window.addEventListener('resize', function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () { heatmap(palette()); }, 100);
  });

  // ---- Reveal ------------------------------------------------------------------------------

  var button = document.getElementById('reveal-button');
  var target = document.getElementById('revealed-rows');
  var shown = false;

  function cell(tag, text, className) {
    var element = document.createElement(tag);
    element.textContent = text;
    if (className) element.className = className;
    return element;
  }

  function showRows(revealed) {
    if (!target || !revealed || !Array.isArray(revealed.rows)) return;
    while (target.firstChild) target.removeChild(target.firstChild);
    var table = document.createElement('table');
    table.className = 'data';
    var head = table.createTHead().insertRow();
    head.appendChild(cell('th', 'Row')).className = 'num';
    head.appendChild(cell('th', 'Certified'));
    revealed.features.forEach(function (name) { head.appendChild(cell('th', String(name))).setAttribute('scope', 'col'); });
    head.appendChild(cell('th', 'Label'));
    var tbody = table.createTBody();
    revealed.rows.slice(0, REVEAL_TABLE_LIMIT).forEach(function (row, i) {
      var tr = tbody.insertRow();
      tr.className = row.certified ? 'certified' : 'uncertified';
      tr.appendChild(cell('td', String(i + 1), 'num'));
      tr.appendChild(cell('td', row.certified ? 'certified' : 'estimate', row.certified ? 'mark-certified' : 'mark-estimate'));
      row.values.forEach(function (value) {
        tr.appendChild(value === null ? cell('td', '?', 'undetermined') : cell('td', String(value), 'num'));
      });
      tr.appendChild(cell('td', String(row.label)));
    });
    target.appendChild(table);
    if (revealed.rows.length > REVEAL_TABLE_LIMIT) {
      target.appendChild(cell('p', 'The first ' + REVEAL_TABLE_LIMIT + ' of ' + revealed.rows.length + ' rows are shown. "?": the model does not determine the value.', 'note'));
    } else {
      target.appendChild(cell('p', '"?": the model does not determine the value.', 'note'));
    }
    target.hidden = false;
    shown = true;
    if (button) {
      button.disabled = false;
      button.textContent = 'Hide reconstructed values';
    }
  }

  function hideRows() {
    if (!target) return;
    while (target.firstChild) target.removeChild(target.firstChild);
    target.hidden = true;
    shown = false;
    if (button) button.textContent = 'Reveal reconstructed values';
  }

  if (button) {
    button.addEventListener('click', function () {
      if (shown) return hideRows();
      if (vscode) {
        button.disabled = true;
        button.textContent = 'Waiting for the values…';
        vscode.postMessage({ type: 'reveal' });
        return;
      }
      var revealed = readJson('revealed-data');
      if (revealed) showRows(revealed);
    });
  }

  // ---- The extension's messages and links (webview only) ------------------------------------

  if (vscode) {
    window.addEventListener('message', function (event) {
      var message = event.data;
      if (!message || typeof message !== 'object') return;
      if (message.type === 'rows') showRows(message.rows);
      if (message.type === 'timeline') updateTimeline(message);
      if (message.type === 'rows-unavailable' && button) {
        button.disabled = false;
        button.textContent = 'Reveal reconstructed values';
        if (target) {
          while (target.firstChild) target.removeChild(target.firstChild);
          target.appendChild(cell('p', message.reason ? String(message.reason) : 'The values are not available.', 'note'));
          target.hidden = false;
        }
      }
    });
    document.addEventListener('click', function (event) {
      var anchor = event.target && event.target.closest ? event.target.closest('a[data-open]') : null;
      if (!anchor) return;
      event.preventDefault();
      var message = { type: 'open', url: anchor.getAttribute('data-open') };
      if (anchor.hasAttribute('data-line')) message.line = Number(anchor.getAttribute('data-line'));
      if (anchor.hasAttribute('data-cell')) message.cell = Number(anchor.getAttribute('data-cell'));
      vscode.postMessage(message);
    });
  }
})();
