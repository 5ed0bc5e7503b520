// durable-store console: the live-rates line chart, hand-written SVG (no third-party code, no build
// step). console.js feeds it the samples of GET api/rates; every value is set as an attribute or as
// textContent, never as markup.
(function () {
  'use strict';
  const NS = 'http://www.w3.org/2000/svg';
  const SERIES = [['staged', 'Staged'], ['claimed', 'Claimed'], ['settled', 'Settled']];
  const W = 720, H = 220, LEFT = 56, RIGHT = 16, TOP = 14, BOTTOM = 40;
  const PW = W - LEFT - RIGHT, PH = H - TOP - BOTTOM;

  function svg(tag, attrs, text) {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = text;
    return e;
  }

  /**
   * The scale for values up to v: the smallest "round" top (1, 2, 2.5 or 5 times a power of ten, 1 at
   * least) and its gridline step, so every label is a round number.
   */
  function scale(v) {
    const top = v > 1 ? v : 1;
    const p = Math.pow(10, Math.floor(Math.log10(top)));
    for (const [m, step] of [[1, 0.2], [2, 0.5], [2.5, 0.5], [5, 1], [10, 2]]) {
      if (m * p >= top) return { max: m * p, step: step * p };
    }
    return { max: 10 * p, step: 2 * p };
  }
  const label = (v, step) => (step >= 1 ? Math.round(v) : Math.round(v * 10) / 10).toLocaleString('en-US');

  /** @return an empty chart: axes, axis titles, one path per series; fill it with update() */
  function create() {
    const root = svg('svg', { id: 'rates-chart', class: 'rates-chart', viewBox: '0 0 ' + W + ' ' + H,
      role: 'img', 'aria-label': 'Rows per second: no samples yet', 'data-samples': 0 });
    root.append(svg('title', { id: 'rates-chart-title' }, 'Rows staged, claimed and settled per second'));
    root.append(svg('g', { class: 'grid', 'aria-hidden': 'true' }));
    root.append(svg('g', { class: 'x-ticks', 'aria-hidden': 'true' }));
    root.append(svg('line', { class: 'axis', x1: LEFT, y1: TOP + PH, x2: LEFT + PW, y2: TOP + PH }));
    root.append(svg('line', { class: 'axis', x1: LEFT, y1: TOP, x2: LEFT, y2: TOP + PH }));
    root.append(svg('text', { class: 'axis-title', x: LEFT + PW / 2, y: H - 4, 'text-anchor': 'middle' }, 'seconds ago'));
    root.append(svg('text', { class: 'axis-title', x: 14, y: TOP + PH / 2, 'text-anchor': 'middle',
      transform: 'rotate(-90 14 ' + (TOP + PH / 2) + ')' }, 'rows / s'));
    for (const [k] of SERIES) {
      root.append(svg('path', { class: 'series s-' + k, id: 'rates-path-' + k, d: '', 'data-points': 0 }));
      root.append(svg('g', { class: 'points s-' + k, id: 'rates-points-' + k }));
    }
    return root;
  }

  /**
   * Draws the samples, the newest at the right edge, a window of `size` samples `periodMillis` apart.
   * @param root the chart from create()
   * @param samples [{seq, staged, claimed, settled}], oldest first
   */
  function update(root, samples, size, periodMillis) {
    const n = samples.length;
    let top = 0;
    for (const s of samples) for (const [k] of SERIES) top = Math.max(top, s[k]);
    const { max, step } = scale(top);
    const x = (i) => LEFT + PW * (1 - (n - 1 - i) / size);   // the newest at the right edge
    const y = (v) => TOP + PH - PH * v / max;

    const grid = root.querySelector('g.grid');
    grid.replaceChildren();
    for (let i = 0; i * step <= max * 1.0001; i++) {
      const v = i * step;
      grid.append(svg('line', { x1: LEFT, x2: LEFT + PW, y1: y(v), y2: y(v) }));
      grid.append(svg('text', { class: 'y-label', x: LEFT - 6, y: y(v) + 4, 'text-anchor': 'end' }, label(v, step)));
    }
    const ticks = root.querySelector('g.x-ticks');
    ticks.replaceChildren();
    const span = Math.round(size * periodMillis / 1000);
    for (let t = 0; t <= 4; t++) {
      const px = LEFT + PW * t / 4;
      const ago = Math.round(span * (4 - t) / 4);
      ticks.append(svg('line', { x1: px, x2: px, y1: TOP + PH, y2: TOP + PH + 4 }));
      ticks.append(svg('text', { class: 'x-label', x: px, y: TOP + PH + 17, 'text-anchor': 'middle' },
        ago === 0 ? 'now' : '−' + ago + ' s'));
    }
    for (const [k] of SERIES) {
      const d = samples.map((s, i) => (i === 0 ? 'M' : 'L') + x(i).toFixed(1) + ',' + y(s[k]).toFixed(1)).join(' ');
      const path = root.querySelector('#rates-path-' + k);
      path.setAttribute('d', d);
      path.setAttribute('data-points', n);
      root.querySelector('#rates-points-' + k).replaceChildren(...samples.map((s, i) => svg('circle',
        { class: 'pt', cx: x(i).toFixed(1), cy: y(s[k]).toFixed(1), r: i === n - 1 ? 3 : 1.6, 'data-seq': s.seq },
        undefined)));
    }
    root.setAttribute('data-samples', n);
    root.setAttribute('data-max', max);
    const last = samples[n - 1];
    root.setAttribute('aria-label', last
      ? 'Rows per second over the last ' + span + ' s, now: ' + SERIES.map(([k, l]) => l.toLowerCase() + ' '
        + last[k].toFixed(1)).join(', ') + '; scale 0 to ' + label(max, step)
      : 'Rows per second: no samples yet');
  }

  window.DurableStoreRatesChart = { create, update, SERIES };
})();
