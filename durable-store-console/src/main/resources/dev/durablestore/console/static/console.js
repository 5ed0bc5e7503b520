// durable-store console: plain JavaScript, no build step, no third-party code. Every value from the
// server is written with textContent, never as HTML.
(function () {
  'use strict';
  const API = new URL('api/', window.location.href.split('#')[0]).pathname;
  let session = null;
  let rates = null;
  let overviewTimer = null;

  // ------------------------------------------------------------------ helpers
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else if (k.startsWith('on')) e.addEventListener(k.substring(2), v);
      else e.setAttribute(k, v === true ? '' : v);
    }
    for (const c of children) {
      if (c === null || c === undefined) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }
  const fmt = (n) => (n === null || n === undefined) ? '' : Number(n).toLocaleString('en-US');
  function age(ms) {
    if (ms === null || ms === undefined) return '';
    const s = Math.floor(ms / 1000);
    if (s < 120) return s + 's';
    if (s < 7200) return Math.floor(s / 60) + 'm';
    if (s < 172800) return Math.floor(s / 3600) + 'h';
    return Math.floor(s / 86400) + 'd';
  }
  function cookie(name) {
    const m = document.cookie.match(new RegExp('(?:^|; )' + name + '=([^;]*)'));
    return m ? decodeURIComponent(m[1]) : null;
  }
  async function get(path) {
    const r = await fetch(API + path, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
    const body = await r.json().catch(() => ({ message: r.statusText }));
    if (!r.ok) throw new Error(body.message || r.statusText);
    return body;
  }
  async function post(path, payload) {
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json',
      'X-Console-CSRF': session.csrfToken || '' };
    if (session.hostCsrf) {
      // the host's own CSRF token (Spring Security's), as GET session handed it over
      headers[session.hostCsrf.headerName] = session.hostCsrf.token;
    } else {
      const xsrf = cookie('XSRF-TOKEN'); // the XSRF-TOKEN cookie convention of other hosts
      if (xsrf) headers['X-XSRF-TOKEN'] = xsrf;
    }
    const r = await fetch(API + path, { method: 'POST', credentials: 'same-origin', headers, body: JSON.stringify(payload) });
    const body = await r.json().catch(() => ({ message: r.statusText }));
    if (!r.ok) throw new Error(body.message || r.statusText);
    return body;
  }
  function flash(text, error) {
    const f = document.getElementById('flash');
    f.textContent = text;
    f.className = error ? 'error' : '';
    f.hidden = false;
  }
  function confirmDialog(text) {
    return new Promise((resolve) => {
      const box = document.getElementById('confirm');
      document.getElementById('confirm-text').textContent = text;
      box.hidden = false;
      const ok = document.getElementById('confirm-ok');
      const cancel = document.getElementById('confirm-cancel');
      const done = (v) => { box.hidden = true; ok.onclick = null; cancel.onclick = null; resolve(v); };
      ok.onclick = () => done(true);
      cancel.onclick = () => done(false);
    });
  }
  const can = (action) => session && !session.readOnly && (session.actions || []).includes(action);
  function view(...children) {
    const v = document.getElementById('view');
    v.replaceChildren(...children);
    return v;
  }
  function statusBadge(s) { return el('span', { class: 'status ' + s, text: s }); }
  // A payload preview: JSON (indented when whole), or base64 with a note when its bytes are not UTF-8 JSON.
  function preview(text, truncated, format) {
    if (text === undefined) return el('span', { class: 'muted', text: session.previews ? '' : 'hidden' });
    let shown = text;
    if (format === 'json' && !truncated) {
      try { shown = JSON.stringify(JSON.parse(text), null, 2); } catch (e) { shown = text; }
    }
    const pre = el('pre', { class: 'preview', 'data-format': format || null, text: shown + (truncated ? ' …' : '') });
    if (format !== 'base64') return pre;
    return el('div', {}, el('div', { class: 'muted note', text: 'not UTF-8 JSON: shown as base64' }), pre);
  }
  // Attempts are numbered from 1 everywhere: the row's attempt (the one it is on, was last on, or is
  // due for), its failures and the dispatcher's log ("failed on attempt 3 of 3").
  const ATTEMPT_TITLE = 'Numbered from 1: the attempt the row is on, was last on, or is due for';
  function reasonLine(f) {
    if (f.message === undefined) return f.type || '(message hidden)';
    return f.type ? f.type + (f.message ? ': ' + f.message : '') : f.message;
  }
  // A row's failed attempts: the last one in a line, every one (time, type, message, trace) when opened.
  function failures(r) {
    const fs = r.failures || [];
    if (!fs.length) return el('span', { class: 'muted', text: '—' });
    const last = fs[fs.length - 1];
    return el('details', { class: 'failures' },
      el('summary', {}, el('span', { class: 'failure-last', text: 'Attempt ' + last.attempt + ': ' + reasonLine(last) }),
        fs.length > 1 ? el('span', { class: 'muted', text: ' (' + fs.length + ' failures)' }) : null),
      el('ol', { class: 'failure-list' }, ...fs.map((f) => el('li', { 'data-attempt': f.attempt },
        el('strong', { text: 'Attempt ' + f.attempt }), ' ', el('span', { class: 'muted', text: f.failedAt }), ' ',
        el('span', { class: 'failure-reason', text: reasonLine(f) }),
        f.trace ? el('pre', { class: 'trace', text: f.trace }) : null))));
  }

  // ------------------------------------------------------------------ overview
  // The rates' samples, kept while the page is open (whichever view shows), oldest first.
  const chart = window.DurableStoreRatesChart;
  const samples = [];
  let sampleStream = null;
  let sampleWindow = 60;
  let samplePeriod = 1000;
  function drawRates() {
    const last = samples[samples.length - 1];
    for (const [k] of chart.SERIES) {
      const node = document.getElementById('rate-' + k);
      if (node && last) node.textContent = last[k].toFixed(1);
    }
    const svg = document.getElementById('rates-chart');
    if (svg) chart.update(svg, samples, sampleWindow, samplePeriod);
  }
  function startRates() {
    if (rates || !session.rates) return;
    rates = new EventSource(API + 'rates');
    rates.addEventListener('rates', (e) => {
      const d = JSON.parse(e.data);
      if (!d.available) {
        for (const [k] of chart.SERIES) {
          const node = document.getElementById('rate-' + k);
          if (node) node.textContent = 'n/a';
        }
        return;
      }
      if (d.stream !== sampleStream) { samples.length = 0; sampleStream = d.stream; }  // the server restarted
      if (samples.length && d.seq <= samples[samples.length - 1].seq) return;         // seen before a reconnect
      sampleWindow = d.window || sampleWindow;
      samplePeriod = d.periodMillis || samplePeriod;
      samples.push(d);
      while (samples.length > sampleWindow) samples.shift();
      drawRates();
    });
  }
  // The retention backlog as of the count: closed workflows past their retention still stored, those
  // kept by a pending or claimed row, and how long ago the oldest closed; or that retention is off.
  function retention(r) {
    if (!r.on) {
      return [el('p', { class: 'muted', id: 'retention-off',
        text: 'Retention is off: the store keeps every closed workflow (the console was given no retention policy).' })];
    }
    const card = (k, v, l) => el('div', { class: 'card' }, el('div', { class: 'v', id: 'retention-' + k, text: v }),
      el('div', { class: 'l', text: l }));
    return [el('div', { class: 'cards' },
      card('overdue', fmt(r.overdue), 'Overdue closed workflows'),
      card('held', fmt(r.heldByLiveRows), 'Held by live rows'),
      card('oldest', r.overdue > 0 ? age(r.oldestAgeMillis) : '—', 'Age of the oldest overdue')),
    el('p', { class: 'muted', text: 'Workflows closed longer than their retention and still stored; the sweeper deletes '
      + 'them on its next pass, except those held until their pending or claimed rows settle.' })];
  }
  async function overview() {
    const cards = el('div', { class: 'cards', id: 'rates-legend' },
      ...chart.SERIES.map(([k, l]) => el('div', { class: 'card' },
        el('div', { class: 'v', id: 'rate-' + k, text: session.rates ? '…' : 'n/a' }),
        el('div', { class: 'l' }, el('span', { class: 'swatch s-' + k, 'aria-hidden': 'true' }), l + ' / s'))));
    const graph = session.rates ? chart.create()
      : el('p', { class: 'muted', id: 'rates-none', text: 'No live rates: the console has no TrafficMeter around the store.' });
    const rateBox = el('section', { class: 'rates', 'aria-labelledby': 'rates-heading' },
      el('h2', { id: 'rates-heading', text: 'Live rates' }), cards, graph);
    const holder = el('div', { id: 'overview-table' }, el('p', { class: 'muted', text: 'Counting…' }));
    const retentionBox = el('section', { class: 'retention', 'aria-labelledby': 'retention-heading' },
      el('h2', { id: 'retention-heading', text: 'Retention backlog' }),
      el('div', { id: 'retention' }, el('p', { class: 'muted', text: 'Counting…' })));
    view(rateBox, el('h2', { text: 'Outbox by route' }), holder,
      el('p', { class: 'muted', id: 'counted-at' }), retentionBox);
    startRates();
    drawRates();
    const draw = async () => {
      try {
        const o = await get('overview');
        const cols = [['pending', 'Pending'], ['due', 'Due'], ['claimed', 'Claimed'], ['staleClaimed', 'Claimed > lease'],
          ['done', 'Done'], ['failed', 'Failed'], ['cancelled', 'Cancelled']];
        const capped = new Set(o.capped);
        const isCapped = (k) => capped.has(k === 'due' ? 'pending' : k === 'staleClaimed' ? 'claimed' : k);
        const cell = (k, v) => el('td', { class: 'num c-' + k }, (isCapped(k) ? '≥ ' : '') + fmt(v));
        // the route's activity, from the database (any process): its oldest due row, and a claim or a
        // done or failed settle within the lease
        const seen = (r) => {
          const last = [r.lastClaimAgeMillis, r.lastSettleAgeMillis].filter((v) => v !== null && v !== undefined);
          const text = last.length ? age(Math.min(...last)) + ' ago' : 'never';
          return el('td', { class: 'c-claimerSeen ' + (r.claimerSeen ? 'ok' : (r.due > 0 ? 'bad' : 'muted')),
            'data-seen': String(r.claimerSeen), title: 'the latest claim or done/failed settle on this route',
            text: r.claimerSeen ? text : 'not within lease (' + text + ')' });
        };
        const table = el('table', { id: 'routes' },
          el('thead', {}, el('tr', {}, el('th', { text: 'Namespace' }), el('th', { text: 'Task queue' }), el('th', { text: 'Node' }),
            ...cols.map(([, l]) => el('th', { class: 'num', text: l })),
            el('th', { class: 'num', text: 'Oldest due' }), el('th', { text: 'Claimer seen' }))),
          el('tbody', {}, ...o.routes.map((r) => el('tr', { 'data-route': r.namespace + '/' + r.taskQueue + '/' + (r.node || '') },
            el('td', { text: r.namespace }), el('td', { text: r.taskQueue }), el('td', { class: r.node ? '' : 'muted', text: r.node || 'any' }),
            ...cols.map(([k]) => cell(k, r[k])),
            el('td', { class: 'num c-oldestDue', text: r.oldestDueAgeMillis === null ? '—' : age(r.oldestDueAgeMillis) }),
            seen(r))),
          el('tr', { class: 'total', id: 'totals' }, el('td', { text: 'All routes' }), el('td'), el('td'),
            ...cols.map(([k]) => cell(k, o.totals[k])), el('td'), el('td'))));
        document.getElementById('overview-table')?.replaceChildren(table);
        const at = document.getElementById('counted-at');
        if (at) {
          at.textContent = 'Counted at ' + o.countedAt + ' (' + o.countMillis + ' ms, cached ' + age(o.ageMillis)
            + '); at most ' + fmt(o.cap) + ' rows counted per status' + (o.capped.length ? ', capped: ' + o.capped.join(', ') : '')
            + '. Lease ' + o.lease + '.';
        }
        document.getElementById('retention')?.replaceChildren(...retention(o.retention));
      } catch (e) {
        flash('Overview failed: ' + e.message, true);
      }
    };
    await draw();
    overviewTimer = setInterval(draw, Math.max(1000, session.countTtlMillis));
  }

  // ------------------------------------------------------------------ row lists (dead letters, stuck claims)
  function rowList(kind) {
    const dead = kind === 'dead';
    const fixed = dead ? { status: 'failed' } : { status: 'claimed' };
    const fields = [['namespace', 'Namespace'], ['taskQueue', 'Task queue'], ['node', 'Node'], ['activityType', 'Activity type'],
      ['workflowId', 'Workflow id'], ['olderThan', 'Older than']];
    const form = el('form', { class: 'filters', id: 'filter-form' },
      ...fields.map(([n, l]) => el('label', {}, l, el('input', { name: n, id: 'f-' + n, size: n === 'workflowId' ? 36 : 12,
        placeholder: n === 'olderThan' ? (dead ? '10m, 2h, 1d' : 'lease') : '' }))),
      el('button', { class: 'primary', type: 'submit', id: 'btn-apply', text: 'Apply' }));
    if (!dead) form.querySelector('#f-olderThan').value = 'lease';
    const toolbar = el('div', { class: 'toolbar' });
    const table = el('div', { id: 'rows-table' });
    const pager = el('div', { class: 'toolbar' });
    view(el('h2', { text: dead ? 'Dead letters (failed rows)' : 'Stuck claims (claimed longer than the lease)' }),
      form, toolbar, table, pager);
    let cursor = null;
    let stack = [];
    const filter = () => {
      const f = Object.assign({}, fixed);
      for (const [n] of fields) {
        const v = form.elements[n].value.trim();
        if (v) f[n] = v;
      }
      return f;
    };
    const qs = (f, extra) => new URLSearchParams(Object.assign({}, f, extra || {})).toString();
    const selected = () => [...table.querySelectorAll('input.select:checked')].map((c) => c.dataset.key);

    async function act(action, body, what) {
      try {
        const r = await post('actions/' + action, body);
        flash(action + ': ' + r.changed + ' row(s) changed, ' + r.skipped + ' skipped (' + what + ')');
        load(null);
      } catch (e) {
        flash(action + ' refused: ' + e.message, true);
      }
    }
    async function byFilter(action, verb) {
      const f = filter();
      try {
        const c = await get('rows/count?' + qs(f));
        if (c.count === 0) { flash('No rows match the filter.', true); return; }
        const n = (c.capped ? 'the first ' : '') + fmt(c.count);
        if (await confirmDialog(verb + ' ' + n + ' row(s) matching the filter?' + (c.capped ? ' (at most ' + fmt(c.maxBulk) + ' per action)' : ''))) {
          delete f.status;
          await act(action, { filter: f, confirm: true }, 'by filter');
        }
      } catch (e) {
        flash('Count failed: ' + e.message, true);
      }
    }
    const buttons = [];
    if (dead && can('redrive')) {
      buttons.push(el('button', { id: 'btn-redrive-selected', text: 'Redrive selected', onclick: async () => {
        const keys = selected();
        if (keys.length && await confirmDialog('Redrive ' + keys.length + ' selected row(s)?')) act('redrive', { keys }, 'selected');
      } }));
      buttons.push(el('button', { id: 'btn-redrive-filter', class: 'danger', text: 'Redrive all matching…', onclick: () => byFilter('redrive', 'Redrive') }));
    }
    if (!dead && can('release')) {
      buttons.push(el('button', { id: 'btn-release-selected', text: 'Release selected', onclick: async () => {
        const keys = selected();
        if (keys.length && await confirmDialog('Release ' + keys.length + ' selected claim(s) back to pending?')) act('release', { keys }, 'selected');
      } }));
      buttons.push(el('button', { id: 'btn-release-filter', class: 'danger', text: 'Release all matching…', onclick: () => byFilter('release', 'Release') }));
    }
    if (!dead && can('cancel')) {
      buttons.push(el('button', { id: 'btn-cancel-selected', text: 'Cancel selected', onclick: async () => {
        const keys = selected();
        if (keys.length && await confirmDialog('Cancel ' + keys.length + ' selected row(s)? They will not run.')) act('cancel', { keys }, 'selected');
      } }));
      buttons.push(el('button', { id: 'btn-cancel-filter', class: 'danger', text: 'Cancel all matching…', onclick: () => byFilter('cancel', 'Cancel') }));
    }
    if (!buttons.length) buttons.push(el('span', { class: 'muted', id: 'no-actions', text: 'Read-only: no actions.' }));
    toolbar.replaceChildren(...buttons);

    async function load(after) {
      try {
        const page = await get('rows?' + qs(filter(), after ? { after } : {}));
        const showSelect = buttons.some((b) => b.tagName === 'BUTTON');
        const all = showSelect ? el('input', { type: 'checkbox', id: 'select-all', onchange: (e) => {
          table.querySelectorAll('input.select').forEach((c) => { c.checked = e.target.checked; });
        } }) : null;
        const t = el('table', { id: 'rows' },
          el('thead', {}, el('tr', {}, showSelect ? el('th', {}, all) : null, el('th', { text: 'Dispatch key' }), el('th', { text: 'Workflow' }),
            el('th', { text: 'Route' }), el('th', { text: 'Activity' }), el('th', { class: 'num', title: ATTEMPT_TITLE, text: 'Attempt' }),
            el('th', { text: dead ? 'Visible after' : 'Claimed' }), el('th', { text: 'Failures' }), el('th', { text: 'Input' }))),
          el('tbody', {}, ...page.rows.map((r) => el('tr', { 'data-key': r.dispatchKey },
            showSelect ? el('td', {}, el('input', { type: 'checkbox', class: 'select', 'data-key': r.dispatchKey })) : null,
            el('td', {}, el('code', { text: r.dispatchKey })),
            el('td', {}, el('a', { href: '#/workflow/' + r.workflowId, text: r.workflowId.substring(0, 8) + '…' })),
            el('td', { text: r.namespace + '/' + r.taskQueue + (r.node ? '@' + r.node : '') }),
            el('td', { text: r.activityType }), el('td', { class: 'num', text: r.attempt }),
            el('td', { text: dead ? r.visibleAfter : (r.claimedAt + ' (' + age(r.claimAgeMillis) + ' ago)') }),
            el('td', { class: 'failures-cell' }, failures(r)),
            el('td', {}, preview(r.input, r.inputTruncated, r.inputFormat), el('div', { class: 'muted', text: fmt(r.inputBytes) + ' bytes' }))))));
        table.replaceChildren(page.rows.length ? t : el('p', { class: 'muted', id: 'no-rows', text: 'No rows match.' }));
        pager.replaceChildren(
          el('button', { id: 'btn-prev', text: '‹ Previous', disabled: stack.length === 0, onclick: () => { load(stack.pop() || null); } }),
          el('button', { id: 'btn-next', text: 'Next ›', disabled: !page.next, onclick: () => { stack.push(after); load(page.next); } }));
        cursor = after;
      } catch (e) {
        table.replaceChildren(el('p', { class: 'bad', id: 'rows-error', text: e.message }));
      }
    }
    form.addEventListener('submit', (e) => { e.preventDefault(); stack = []; load(null); });
    load(null);
    return cursor;
  }

  // ------------------------------------------------------------------ workflow view
  function workflow(id) {
    const input = el('input', { id: 'wf-id', size: 40, placeholder: 'workflow id (UUID)', value: id || '' });
    const form = el('form', { class: 'filters', id: 'wf-form', onsubmit: (e) => {
      e.preventDefault();
      window.location.hash = '#/workflow/' + input.value.trim();
    } }, el('label', {}, 'Workflow id', input), el('button', { class: 'primary', type: 'submit', text: 'Show' }));
    const body = el('div', { id: 'wf-body' });
    view(el('h2', { text: 'Workflow' }), form, body);
    if (!id) return;
    (async () => {
      try {
        const w = await get('workflows/' + encodeURIComponent(id));
        const s = w.summary;
        const kv = el('div', { class: 'kv', id: 'wf-summary' });
        const add = (k, v) => kv.append(el('div', { text: k }), el('div', {}, v === null || v === undefined ? '' : v));
        add('Workflow id', el('code', { text: w.workflowId }));
        add('Type', s ? s.workflowType : '(no start event)');
        add('Status', s ? statusBadge(s.status) : '');
        add('Started', s ? s.startedAt : '');
        add('Ended', s ? s.endedAt : '');
        add('Parent', s && s.parent ? el('a', { href: '#/workflow/' + s.parent, text: s.parent }) : '');
        if (s && s.failureReason) add('Failure', (s.failedStep ? s.failedStep + ': ' : '') + s.failureReason);
        add('History head', String(w.head));
        add('Timers', el('a', { id: 'wf-timers', href: '#/timers/' + w.workflowId, text: 'timers of this workflow' }));
        add('Outbox', Object.entries(w.outboxStates).filter(([, n]) => n > 0).map(([k, n]) => k + ' ' + n).join(', ') || 'no rows');
        const actions = el('div', { class: 'toolbar', id: 'wf-actions' });
        const wfAct = async (action, verb) => {
          if (!await confirmDialog(verb + ' the rows of workflow ' + w.workflowId + '?')) return;
          try {
            const r = await post('actions/' + action, { workflowId: w.workflowId });
            flash(action + ': ' + r.changed + ' row(s) changed');
            workflow(id);
          } catch (e) { flash(action + ' refused: ' + e.message, true); }
        };
        if (can('redrive') && w.outboxStates.failed > 0) actions.append(el('button', { id: 'wf-redrive', text: 'Redrive failed rows', onclick: () => wfAct('redrive', 'Redrive the failed') }));
        if (can('cancel') && (w.outboxStates.pending + w.outboxStates.claimed) > 0) actions.append(el('button', { id: 'wf-cancel', class: 'danger', text: 'Cancel live rows', onclick: () => wfAct('cancel', 'Cancel the live') }));
        const runs = el('table', { id: 'wf-runs' }, el('thead', {}, el('tr', {}, el('th', { text: 'Run' }), el('th', { text: 'Parent run' }),
          el('th', { text: 'Status' }), el('th', { text: 'Started' }), el('th', { text: 'Closed' }))),
          el('tbody', {}, ...w.runChain.map((r) => el('tr', {}, el('td', {}, el('code', { text: r.runId })), el('td', { text: r.parentRunId || '' }),
            el('td', {}, statusBadge(r.status)), el('td', { text: r.startedAt }), el('td', { text: r.closedAt || '' })))));
        const outbox = el('table', { id: 'wf-outbox' }, el('thead', {}, el('tr', {}, el('th', { text: 'Dispatch key' }), el('th', { text: 'Activity' }),
          el('th', { text: 'Status' }), el('th', { class: 'num', title: ATTEMPT_TITLE, text: 'Attempt' }), el('th', { text: 'Route' }),
          el('th', { text: 'Attempt history' }), el('th', { text: 'Input' }))),
          el('tbody', {}, ...w.outbox.map((r) => el('tr', { 'data-key': r.dispatchKey }, el('td', {}, el('code', { text: r.dispatchKey })),
            el('td', { text: r.activityType }), el('td', {}, statusBadge(r.status)), el('td', { class: 'num', text: r.attempt }),
            el('td', { text: r.namespace + '/' + r.taskQueue }), el('td', { class: 'failures-cell' }, failures(r)),
            el('td', {}, preview(r.input, r.inputTruncated, r.inputFormat))))));
        const timeline = el('ol', { class: 'timeline', id: 'wf-history' });
        const more = el('div', { class: 'toolbar' });
        body.replaceChildren(kv, actions, el('h3', { text: 'Run chain' }), runs, el('h3', { text: 'Outbox rows' }),
          w.outbox.length ? outbox : el('p', { class: 'muted', text: 'No outbox rows.' }), el('h3', { text: 'History' }), timeline, more);
        const loadHistory = async (from) => {
          const h = await get('workflows/' + encodeURIComponent(id) + '/history?from=' + from);
          for (const e of h.events) {
            timeline.append(el('li', { 'data-seq': e.seq }, el('strong', { text: '#' + e.seq + ' ' + e.kind }), ' ',
              el('span', { class: 'muted', text: e.recordedAt + ' · ' + fmt(e.bytes) + ' bytes' }), preview(e.preview, e.previewTruncated, e.previewFormat)));
          }
          more.replaceChildren(h.next ? el('button', { id: 'wf-more', text: 'More history', onclick: () => loadHistory(h.next) }) : '');
        };
        if (w.head > 0) await loadHistory(1);
      } catch (e) {
        body.replaceChildren(el('p', { class: 'bad', id: 'wf-error', text: e.message }));
      }
    })();
  }

  // ------------------------------------------------------------------ paged lists (workflows, timers)
  // A form of filters, a table and Previous / Next buttons over an API listing paged by a `next` cursor.
  function pagedList(opts) {
    const form = el('form', { class: 'filters', id: opts.id + '-form' }, ...opts.fields.map((f) => el('label', {}, f.label,
      f.options ? el('select', { name: f.name, id: 'f-' + f.name }, ...f.options.map((o) => el('option', { value: o, text: o || 'any' })))
        : el('input', { name: f.name, id: 'f-' + f.name, size: f.size || 14, placeholder: f.placeholder || '', value: f.value || '' }))),
      el('button', { class: 'primary', type: 'submit', id: opts.id + '-apply', text: 'Apply' }));
    const table = el('div', { id: opts.id + '-table' });
    const pager = el('div', { class: 'toolbar' });
    view(el('h2', { text: opts.title }), form, opts.note ? el('p', { class: 'muted', text: opts.note }) : null, table, pager);
    let stack = [];
    const filter = () => {
      const f = {};
      for (const { name } of opts.fields) {
        const v = form.elements[name].value.trim();
        if (v) f[name] = v;
      }
      return f;
    };
    async function load(after) {
      try {
        const page = await get(opts.path + '?' + new URLSearchParams(Object.assign(filter(), after ? { after } : {})).toString());
        const items = page[opts.key];
        table.replaceChildren(items.length ? el('table', { id: opts.id },
          el('thead', {}, el('tr', {}, ...opts.columns.map((c) => el('th', { class: c.num ? 'num' : null, text: c.label })))),
          el('tbody', {}, ...items.map((it) => el('tr', opts.rowAttrs(it), ...opts.columns.map((c) => {
            const v = c.cell(it);
            return el('td', { class: c.num ? 'num' : null }, v === null || v === undefined ? '' : v);
          })))))
          : el('p', { class: 'muted', id: opts.id + '-none', text: opts.none }));
        pager.replaceChildren(
          el('button', { id: opts.id + '-prev', text: '‹ Previous', disabled: stack.length === 0, onclick: () => { const prev = stack.pop(); load(prev === undefined ? null : prev); } }),
          el('button', { id: opts.id + '-next', text: 'Next ›', disabled: !page.next, onclick: () => { stack.push(after); load(page.next); } }));
        if (opts.loaded) opts.loaded(page);
      } catch (e) {
        table.replaceChildren(el('p', { class: 'bad', id: opts.id + '-error', text: e.message }));
        pager.replaceChildren();
      }
    }
    form.addEventListener('submit', (e) => { e.preventDefault(); stack = []; load(null); });
    load(null);
  }

  const WORKFLOW_STATUSES = ['', 'RUNNING', 'PAUSED', 'COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT', 'CONTINUED_AS_NEW'];
  function workflows() {
    pagedList({ id: 'workflows', title: 'Workflows', path: 'workflows', key: 'workflows', none: 'No workflows match.',
      note: 'Newest start first. Times are an instant (2026-01-02T03:04:05Z) or an age back from now (30m, 2h, 1d); both bounds are inclusive.',
      fields: [{ name: 'type', label: 'Type' }, { name: 'status', label: 'Status', options: WORKFLOW_STATUSES },
        { name: 'startedAfter', label: 'Started after', placeholder: '1d or an instant' },
        { name: 'startedBefore', label: 'Started before', placeholder: '1h or an instant' },
        { name: 'parent', label: 'Parent id', size: 36 }],
      rowAttrs: (w) => ({ 'data-workflow': w.workflowId }),
      columns: [
        { label: 'Workflow', cell: (w) => el('a', { href: '#/workflow/' + w.workflowId }, el('code', { text: w.workflowId })) },
        { label: 'Type', cell: (w) => w.workflowType },
        { label: 'Status', cell: (w) => statusBadge(w.status) },
        { label: 'Started', cell: (w) => w.startedAt },
        { label: 'Ended', cell: (w) => w.endedAt },
        { label: 'Failure', cell: (w) => w.failureReason ? (w.failedStep ? w.failedStep + ': ' : '') + w.failureReason : '' }] });
  }

  function timers(workflowId) {
    pagedList({ id: 'timers', title: 'Timers', path: 'timers', key: 'timers', none: 'No timers match.',
      note: 'Fire time first. "Due within" counts forward from now (0s: due now, 1h: due within the hour, any: every timer); overdue timers are always included.',
      fields: [{ name: 'dueWithin', label: 'Due within', placeholder: '0s, 10m, 1h, any', value: workflowId ? 'any' : '' },
        { name: 'workflowId', label: 'Workflow id', size: 36, value: workflowId || '' }],
      rowAttrs: (t) => ({ 'data-timer': t.workflowId + '/' + t.timerId }),
      loaded: (page) => { const n = document.getElementById('timers-as-of'); if (n) n.textContent = 'Due by ' + page.asOf + '.'; },
      columns: [
        { label: 'Fire at', cell: (t) => t.fireAt },
        { label: 'Due', cell: (t) => t.dueInMillis <= 0 ? el('span', { class: 'bad', text: 'overdue ' + age(-t.dueInMillis) })
          : 'in ' + age(t.dueInMillis) },
        { label: 'Timer', cell: (t) => el('code', { text: t.timerId }) },
        { label: 'Workflow', cell: (t) => el('a', { href: '#/workflow/' + t.workflowId, text: t.workflowId }) }] });
    document.getElementById('view').append(el('p', { class: 'muted', id: 'timers-as-of' }));
  }

  // ------------------------------------------------------------------ routing
  function route() {
    if (overviewTimer) { clearInterval(overviewTimer); overviewTimer = null; }
    const hash = window.location.hash || '#/overview';
    const [, page, arg] = hash.match(/^#\/([a-z]+)\/?(.*)$/) || [null, 'overview', ''];
    document.querySelectorAll('nav a').forEach((a) => a.classList.toggle('active', a.id === 'nav-' + page));
    document.getElementById('flash').hidden = true;
    if (page === 'dead' || page === 'stuck') rowList(page);
    else if (page === 'workflow') workflow(decodeURIComponent(arg || ''));
    else if (page === 'workflows') workflows();
    else if (page === 'timers') timers(decodeURIComponent(arg || ''));
    else overview();
  }
  async function start() {
    try {
      session = await get('session');
    } catch (e) {
      view(el('p', { class: 'bad', text: 'The console API did not answer: ' + e.message }));
      return;
    }
    const mode = document.getElementById('mode');
    mode.textContent = session.readOnly ? 'read-only' : 'actions enabled';
    mode.className = 'mode' + (session.readOnly ? '' : ' actions');
    window.addEventListener('hashchange', route);
    route();
  }
  start();
})();
