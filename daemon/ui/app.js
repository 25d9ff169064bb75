/*
 * The dashboard of tapd: every number on it comes from the API of the
 * same origin (docs/DESIGN.md 7.6), with the bearer token when the daemon
 * wants one.  window.tapdUI holds the state and the URL each panel last
 * read, so that a test can compare what is shown with what the API says.
 */
'use strict';
(function () {
	const RANGES = { '15m': 15 * 60, '1h': 3600, '24h': 86400, '7d': 7 * 86400 };
	/* The metrics the API has always had; others are shown when it sends them. */
	const KNOWN_METRICS = ['first_frame', 'settle', 'launch_first_frame', 'launch_settle'];
	const METRIC_LABEL = {
		first_frame: 'first frame', settle: 'settle',
		launch_first_frame: 'launch first frame', launch_settle: 'launch settle',
	};
	const FEED_MAX = 200;
	const REFRESH_MS = 30000;

	const $ = (id) => document.getElementById(id);
	const state = {
		token: sessionStorage.getItem('tapd.token') || '',
		metrics: ['first_frame', 'settle'],
		apps: [],
		sessions: [],
		sort: { key: 'app', dir: 1 },
		app: '',
		metric: 'first_frame',
		last: {},
		charts: {},
		feed: { ids: [], lastId: null, connected: false, received: {} },
		loads: 0,
	};
	window.tapdUI = state;

	class AuthError extends Error {}

	function headers(extra) {
		const h = Object.assign({}, extra || {});
		if (state.token)
			h.Authorization = 'Bearer ' + state.token;
		return h;
	}

	async function api(path, opts) {
		const o = Object.assign({}, opts || {});
		o.headers = headers(o.headers);
		const r = await fetch(path, o);
		if (r.status === 401) {
			askToken(state.token ? 'That token was refused.' : '');
			throw new AuthError('unauthorized');
		}
		const body = await r.json().catch(() => null);
		if (!r.ok) {
			const msg = body && body.error ? body.error.message : r.statusText;
			const e = new Error(msg);
			e.status = r.status;
			throw e;
		}
		return body;
	}

	function el(tag, attrs, text) {
		const e = document.createElement(tag);
		for (const k in attrs || {}) {
			if (k === 'class')
				e.className = attrs[k];
			else
				e.setAttribute(k, attrs[k]);
		}
		if (text !== undefined && text !== null)
			e.textContent = String(text);
		return e;
	}

	function fmtMs(v) {
		return v === null || v === undefined ? '–' : Number(v).toFixed(1);
	}

	function fmtTime(s) {
		if (!s)
			return '–';
		const d = new Date(s);
		return isNaN(d) ? s : d.toLocaleString();
	}

	/* The filter of every panel: since, until (Unix seconds) and session. */
	function rangeParams() {
		const p = new URLSearchParams();
		const r = $('range').value;
		if (r === 'custom') {
			const a = Date.parse($('since').value), b = Date.parse($('until').value);
			if (!isNaN(a))
				p.set('since', String(Math.floor(a / 1000)));
			if (!isNaN(b))
				p.set('until', String(Math.floor(b / 1000) + 59));
		} else {
			p.set('since', String(Math.floor(Date.now() / 1000) - RANGES[r]));
		}
		if ($('session').value)
			p.set('session', $('session').value);
		return p;
	}

	function rangeText() {
		const r = $('range').value;
		const s = $('session').value;
		let t = r === 'custom' ? 'custom range' : 'last ' + $('range').selectedOptions[0].textContent;
		if (s)
			t += ', session ' + s;
		return t;
	}

	/* Token. */
	function askToken(msg) {
		$('token').hidden = false;
		$('token-error').textContent = msg || '';
		$('token-input').focus();
	}

	$('token-form').addEventListener('submit', (ev) => {
		ev.preventDefault();
		state.token = $('token-input').value.trim();
		sessionStorage.setItem('tapd.token', state.token);
		$('token').hidden = true;
		loadAll();
		startFeed();
	});

	/* Health: the sources, the database and the device when known. */
	async function loadHealth() {
		const h = await api('/v1/health');
		state.health = h;
		const box = $('health');
		box.replaceChildren();
		const src = $('sources').tBodies[0];
		src.replaceChildren();
		for (const [name, s] of Object.entries(h.sources || {})) {
			box.append(el('span', { class: 'badge ' + s.health, title: s.detail || '' },
				name + ' ' + s.health));
			const tr = el('tr');
			tr.append(el('th', {}, name), el('td', { class: 'badge-cell' }, s.health),
				el('td', {}, s.kind || ''), el('td', {}, s.detail || ''));
			src.append(tr);
		}
		const dev = $('device');
		dev.replaceChildren();
		const add = (k, v) => {
			if (v === null || v === undefined || v === '')
				return;
			dev.append(el('dt', {}, k), el('dd', {}, typeof v === 'object' ? JSON.stringify(v) : v));
		};
		add('mode', h.mode);
		add('version', h.version);
		add('started', fmtTime(h.started));
		if (h.device && typeof h.device === 'object')
			for (const [k, v] of Object.entries(h.device)) {
				if (k === 'display' && v && typeof v === 'object') {
					/* "1080 × 2400 px, 120 Hz, 420 dpi": the parts known. */
					const parts = [];
					if (v.width && v.height)
						parts.push(v.width + ' × ' + v.height + ' px');
					if (v.refresh_hz)
						parts.push(v.refresh_hz + ' Hz');
					if (v.density_dpi)
						parts.push(v.density_dpi + ' dpi');
					add('display', parts.join(', '));
				} else if (v && typeof v === 'object') {
					for (const [k2, v2] of Object.entries(v))
						add(k + ' ' + k2, v2);
				} else {
					add('device ' + k, v);
				}
			}
		if (h.database) {
			add('database', h.database.path);
			add('taps stored', h.database.taps);
		}
		if (h.session)
			add('open session', typeof h.session === 'object'
				? (h.session.name || '') + ' (#' + h.session.id + ')' : h.session);
	}

	/* Apps: counts by status and p50/p90/p99 of each metric the API gives. */
	function metricsOf(apps) {
		const found = [];
		for (const a of apps)
			for (const [k, v] of Object.entries(a))
				if (v && typeof v === 'object' && v.percentiles && !found.includes(k))
					found.push(k);
		found.sort((x, y) => {
			const i = KNOWN_METRICS.indexOf(x), j = KNOWN_METRICS.indexOf(y);
			return (i < 0 ? 99 : i) - (j < 0 ? 99 : j);
		});
		return found.length ? found : ['first_frame', 'settle'];
	}

	function sortValue(a, key) {
		if (key === 'app')
			return a.app === null ? '\uffff' : a.app;
		if (key === 'count')
			return a.count;
		const [group, p] = key.split(':');
		if (group === 'status')
			return a.statuses ? a.statuses[p] || 0 : 0;
		const m = a[group];
		const v = m && m.percentiles ? m.percentiles[p] : null;
		return v === null || v === undefined ? -1 : v;
	}

	function renderApps() {
		const t = $('apps');
		const statuses = [];
		for (const a of state.apps)
			for (const k of Object.keys(a.statuses || {}))
				if (!statuses.includes(k))
					statuses.push(k);
		const head = t.tHead;
		head.replaceChildren();
		const r1 = el('tr'), r2 = el('tr');
		const sortable = (tr, key, text, cls) => {
			const th = el('th', { 'data-key': key, class: cls || '' }, text);
			if (state.sort.key === key)
				th.setAttribute('aria-sort', state.sort.dir > 0 ? 'ascending' : 'descending');
			tr.append(th);
		};
		r1.append(el('th', { rowspan: 2 }), el('th', { colspan: 1 + statuses.length, class: 'num' }, 'gestures'));
		for (const m of state.metrics)
			r1.append(el('th', { colspan: 3, class: 'num', 'data-metric': m }, (METRIC_LABEL[m] || m) + ' (ms)'));
		sortable(r2, 'count', 'all', 'num');
		for (const s of statuses)
			sortable(r2, 'status:' + s, s.replace(/_/g, ' '), 'num');
		for (const m of state.metrics)
			for (const p of ['50', '90', '99'])
				sortable(r2, m + ':' + p, 'p' + p, 'num');
		r1.firstChild.replaceWith((() => {
			const th = el('th', { rowspan: 2, 'data-key': 'app' }, 'app');
			if (state.sort.key === 'app')
				th.setAttribute('aria-sort', state.sort.dir > 0 ? 'ascending' : 'descending');
			return th;
		})());
		head.append(r1, r2);

		const rows = state.apps.slice().sort((x, y) => {
			const a = sortValue(x, state.sort.key), b = sortValue(y, state.sort.key);
			return (a < b ? -1 : a > b ? 1 : 0) * state.sort.dir;
		});
		const body = t.tBodies[0];
		body.replaceChildren();
		for (const a of rows) {
			const tr = el('tr', { 'data-app': a.app === null ? '' : a.app });
			if ((a.app || '') === state.app && state.app)
				tr.className = 'chosen';
			tr.append(el('td', { 'data-col': 'app' }, a.app === null ? '(unknown app)' : a.app));
			tr.append(el('td', { class: 'num', 'data-col': 'count', 'data-v': a.count }, a.count));
			for (const s of statuses) {
				const n = a.statuses ? a.statuses[s] || 0 : 0;
				tr.append(el('td', { class: 'num', 'data-col': 'status:' + s, 'data-v': n }, n));
			}
			for (const m of state.metrics)
				for (const p of ['50', '90', '99']) {
					const v = a[m] && a[m].percentiles ? a[m].percentiles[p] : null;
					tr.append(el('td', {
						class: 'num', 'data-col': m + ':' + p,
						'data-v': v === null || v === undefined ? 'null' : String(v),
					}, fmtMs(v)));
				}
			body.append(tr);
		}
		$('apps-empty').hidden = rows.length > 0;
		$('apps-range').textContent = rangeText();
	}

	$('apps').tHead.addEventListener('click', (ev) => {
		const th = ev.target.closest('th[data-key]');
		if (!th)
			return;
		const key = th.getAttribute('data-key');
		state.sort = { key, dir: state.sort.key === key ? -state.sort.dir : key === 'app' ? 1 : -1 };
		renderApps();
	});

	$('apps').tBodies[0].addEventListener('click', (ev) => {
		const tr = ev.target.closest('tr[data-app]');
		if (!tr || !tr.getAttribute('data-app'))
			return;
		state.app = tr.getAttribute('data-app');
		$('app').value = state.app;
		renderApps();
		loadCharts();
	});

	async function loadApps() {
		const url = '/v1/apps?' + rangeParams();
		const j = await api(url);
		state.last.apps = url;
		state.apps = j.apps || [];
		state.metrics = metricsOf(state.apps);
		renderApps();
		const sel = $('app');
		const keep = state.app;
		sel.replaceChildren(el('option', { value: '' }, 'every app'));
		for (const a of state.apps)
			if (a.app !== null)
				sel.append(el('option', { value: a.app }, a.app));
		if (keep && !state.apps.some((a) => a.app === keep))
			sel.append(el('option', { value: keep }, keep));
		sel.value = keep;
		const ms = $('metric');
		ms.replaceChildren();
		for (const m of state.metrics)
			ms.append(el('option', { value: m }, METRIC_LABEL[m] || m));
		if (!state.metrics.includes(state.metric))
			state.metric = state.metrics[0];
		ms.value = state.metric;
	}

	/* Charts: uPlot, sized to their panel. */
	function chartWidth(box) {
		return Math.max(260, box.clientWidth || 300);
	}

	function makeChart(name, box, opts, data) {
		if (state.charts[name])
			state.charts[name].destroy();
		box.replaceChildren();
		opts.width = chartWidth(box);
		opts.height = 220;
		state.charts[name] = new uPlot(opts, data, box);
		return state.charts[name];
	}

	function chartParams() {
		const p = rangeParams();
		if (state.app)
			p.set('app', state.app);
		p.set('metric', state.metric);
		return p;
	}

	async function loadSeries() {
		const p = chartParams();
		p.set('p', '50,90');
		const url = '/v1/series?' + p;
		const box = $('series-chart');
		let j;
		try {
			j = await api(url);
		} catch (e) {
			if (e instanceof AuthError)
				throw e;
			state.last.series = url;
			state.series = null;
			if (state.charts.series)
				state.charts.series.destroy();
			delete state.charts.series;
			box.replaceChildren();
			$('series-note').textContent = 'No series: ' + e.message;
			return;
		}
		state.last.series = url;
		state.series = j;
		const xs = j.points.map((pt) => pt.start_s);
		const p50 = j.points.map((pt) => pt.percentiles['50']);
		const p90 = j.points.map((pt) => pt.percentiles['90']);
		const step = j.step_s === 60 ? 'per minute' : j.step_s === 3600 ? 'per hour' : 'per day';
		$('series-step').textContent = step + ', ' + (METRIC_LABEL[state.metric] || state.metric) +
			', ' + (state.app || 'every app');
		$('series-note').textContent = j.points.length
			? j.points.length + ' ' + step.replace('per ', '') + (j.points.length > 1 ? 's' : '') +
				' with taps; ms'
			: 'No measured taps in this range.';
		/* The whole range chosen, however few points it has. */
		const lo = Number(p.get('since'));
		const hi = p.get('until') ? Number(p.get('until')) : Math.floor(Date.now() / 1000);
		makeChart('series', box, {
			scales: { x: { time: true, range: (u, a, b) => (lo < hi ? [lo, hi] : [a, b]) } },
			series: [
				{},
				{ label: 'p50', stroke: '#1f6feb', width: 2, points: { show: true, size: 5 }, value: (u, v) => fmtMs(v) },
				{ label: 'p90', stroke: '#cf222e', width: 2, points: { show: true, size: 5 }, value: (u, v) => fmtMs(v) },
			],
			axes: [{}, { label: 'ms', size: 56 }],
		}, [xs, p50, p90]);
	}

	function fmtEdge(v) {
		return v >= 1000 ? (v / 1000).toFixed(v >= 10000 ? 0 : 1) + 's' : v >= 10 ? v.toFixed(0) : v.toFixed(1);
	}

	async function loadHistogram() {
		const p = chartParams();
		p.set('buckets', '40');
		const url = '/v1/histogram?' + p;
		const j = await api(url);
		state.last.histogram = url;
		state.histogram = j;
		const b = j.buckets || [];
		const xs = b.map((_, i) => i);
		const ys = b.map((x) => x.count);
		$('hist-note').textContent = (METRIC_LABEL[state.metric] || state.metric) + ', ' +
			(state.app || 'every app') + ', ' + j.count + ' taps';
		makeChart('hist', $('hist-chart'), {
			scales: { x: { time: false, range: [-0.5, Math.max(b.length, 1) - 0.5] } },
			series: [
				{ label: 'ms', value: (u, i) => (i === null || !b[i] ? '–' : fmtEdge(b[i].lo_ms) + '–' + fmtEdge(b[i].hi_ms)) },
				{ label: 'taps', fill: 'rgba(31,111,235,0.35)', stroke: '#1f6feb', paths: uPlot.paths.bars({ size: [0.9, 80] }), points: { show: false } },
			],
			axes: [
				{ label: 'ms', values: (u, splits) => splits.map((i) => (b[i] ? fmtEdge(b[i].lo_ms) : '')) },
				{ label: 'taps', size: 48 },
			],
		}, [xs, ys]);
	}

	async function loadCharts() {
		await Promise.all([loadSeries(), loadHistogram()]);
	}

	$('app').addEventListener('change', () => {
		state.app = $('app').value;
		renderApps();
		loadCharts().catch(report);
	});
	$('metric').addEventListener('change', () => {
		state.metric = $('metric').value;
		loadCharts().catch(report);
	});

	/* Sessions: list, start with a name, stop the open one, filter by. */
	async function loadSessions() {
		const j = await api('/v1/sessions');
		state.sessions = j.sessions || [];
		const body = $('sessions').tBodies[0];
		body.replaceChildren();
		const sel = $('session');
		const keep = sel.value;
		sel.replaceChildren(el('option', { value: '' }, 'all taps'));
		let open = null;
		for (const s of state.sessions.slice().reverse()) {
			const tr = el('tr');
			tr.append(el('td', {}, s.id), el('td', {}, s.name), el('td', {}, fmtTime(s.started)),
				el('td', {}, s.stopped ? fmtTime(s.stopped) : 'open'), el('td', { class: 'num' }, s.taps));
			body.append(tr);
			sel.append(el('option', { value: String(s.id) }, '#' + s.id + ' ' + s.name));
			if (!s.stopped)
				open = s;
		}
		sel.value = keep;
		$('sessions-empty').hidden = state.sessions.length > 0;
		state.openSession = open;
		$('session-stop').disabled = !open;
		$('session-stop').textContent = open ? 'Stop “' + open.name + '”' : 'Stop';
	}

	$('session-form').addEventListener('submit', async (ev) => {
		ev.preventDefault();
		const name = $('session-name').value.trim();
		if (!name)
			return;
		try {
			const s = await api('/v1/sessions', {
				method: 'POST', headers: { 'Content-Type': 'application/json' },
				body: JSON.stringify({ name }),
			});
			$('session-msg').textContent = 'Started session #' + s.id + '.';
			$('session-name').value = '';
		} catch (e) {
			$('session-msg').textContent = 'Cannot start a session: ' + e.message;
		}
		loadSessions().catch(report);
	});

	$('session-stop').addEventListener('click', async () => {
		if (!state.openSession)
			return;
		try {
			await api('/v1/sessions/' + state.openSession.id + '/stop', { method: 'POST' });
			$('session-msg').textContent = 'Stopped session #' + state.openSession.id + '.';
		} catch (e) {
			$('session-msg').textContent = 'Cannot stop the session: ' + e.message;
		}
		loadSessions().catch(report);
	});

	/* Live feed: /v1/events read with fetch, so that it carries the token. */
	function feedRow(t) {
		const tr = el('tr', { 'data-id': t.id, class: 'fresh' });
		tr.tap = t;
		const jank = (t.jank_tags || []).join(' ');
		tr.append(el('td', {}, t.wall_time ? new Date(t.wall_time).toLocaleTimeString() : '–'),
			el('td', {}, t.app === null ? '(unknown)' : t.app), el('td', {}, t.kind),
			el('td', {}, t.status), el('td', { class: 'num' }, fmtMs(t.first_frame_ms)),
			el('td', { class: 'num' }, fmtMs(t.settle_ms)), el('td', {}, jank),
			el('td', {}, (t.flags || []).join(' ')));
		return tr;
	}

	function addTap(t) {
		const body = $('feed').tBodies[0];
		state.feed.received[t.id] = Date.now();
		state.feed.ids.push(t.id);
		body.prepend(feedRow(t));
		$('feed-empty').hidden = true;
		while (body.rows.length > FEED_MAX)
			body.deleteRow(body.rows.length - 1);
	}

	let feedAbort = null;
	async function startFeed() {
		if (feedAbort)
			feedAbort.abort();
		const ctl = new AbortController();
		feedAbort = ctl;
		const h = {};
		if (state.feed.lastId !== null)
			h['Last-Event-ID'] = String(state.feed.lastId);
		try {
			const r = await fetch('/v1/events', { headers: headers(h), signal: ctl.signal });
			if (r.status === 401) {
				askToken(state.token ? 'That token was refused.' : '');
				return;
			}
			if (!r.ok || !r.body)
				throw new Error('HTTP ' + r.status);
			state.feed.connected = true;
			$('live-state').textContent = 'connected';
			const reader = r.body.getReader();
			const dec = new TextDecoder();
			let buf = '';
			for (;;) {
				const { value, done } = await reader.read();
				if (done)
					break;
				buf += dec.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
				let cut;
				while ((cut = buf.indexOf('\n\n')) >= 0) {
					const block = buf.slice(0, cut);
					buf = buf.slice(cut + 2);
					let event = 'message', id = null;
					const data = [];
					for (const line of block.split('\n')) {
						if (line.startsWith(':'))
							continue;
						const i = line.indexOf(':');
						const f = i < 0 ? line : line.slice(0, i);
						const v = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
						if (f === 'event')
							event = v;
						else if (f === 'data')
							data.push(v);
						else if (f === 'id')
							id = v;
					}
					if (id !== null)
						state.feed.lastId = id;
					if (event === 'tap' && data.length)
						addTap(JSON.parse(data.join('\n')));
					else if (event === 'missed' && data.length)
						$('live-state').textContent = 'connected; ' + JSON.parse(data.join('\n')).missed + ' taps missed';
				}
			}
		} catch (e) {
			if (ctl.signal.aborted)
				return;
		}
		state.feed.connected = false;
		$('live-state').textContent = 'reconnecting…';
		if (feedAbort === ctl)
			setTimeout(() => { if (feedAbort === ctl) startFeed(); }, 2000);
	}

	$('feed').tBodies[0].addEventListener('click', (ev) => {
		const tr = ev.target.closest('tr');
		if (tr && tr.tap)
			showTap(tr.tap).catch(report);
	});

	/* A tap's details: its fields, and its frames from /v1/trace. */
	async function showTap(t) {
		const box = $('detail');
		box.hidden = false;
		$('detail-id').textContent = '#' + t.id;
		const dl = $('detail-fields');
		dl.replaceChildren();
		const session = state.sessions.find((s) => s.id === t.session);
		const fields = [
			['app', t.app === null ? '(unknown)' : t.app], ['pid', t.pid], ['kind', t.kind],
			['status', t.status], ['time', fmtTime(t.wall_time)],
			['first frame', t.first_frame_ms === null ? '–' : t.first_frame_ms + ' ms'],
			['settle', t.settle_ms === null ? '–' : t.settle_ms + ' ms'],
			['frames', t.frames], ['jank tags', (t.jank_tags || []).join(', ') || 'none'],
			['jank', (t.jank || []).join(', ') || 'none'], ['flags', (t.flags || []).join(', ') || 'none'],
			['position', t.x === null ? '–' : t.x + ', ' + t.y],
			['window', t.window === null || t.window === undefined ? 'none' : typeof t.window === 'object' ? JSON.stringify(t.window) : t.window],
			['attribution', t.attribution === undefined || t.attribution === null ? '–' : typeof t.attribution === 'object' ? JSON.stringify(t.attribution) : t.attribution],
			['session', t.session === null ? 'none' : session ? '#' + t.session + ' ' + session.name : '#' + t.session],
		];
		for (const k of Object.keys(t))
			if (/^launch/.test(k) && t[k] !== null)
				fields.push([k.replace(/_/g, ' '), t[k]]);
		for (const [k, v] of fields)
			dl.append(el('dt', {}, k), el('dd', {}, v));
		const fb = $('detail-frames').tBodies[0];
		fb.replaceChildren();
		$('detail-note').textContent = '';
		if (!t.wall_time) {
			$('detail-note').textContent = 'No wall time: its frames cannot be looked up.';
			return;
		}
		const ms = Date.parse(t.wall_time);
		const p = new URLSearchParams({ since: String(ms / 1000), until: String((ms + 1) / 1000) });
		if (t.app !== null)
			p.set('app', t.app);
		const tr = await api('/v1/trace?' + p);
		const ev = tr.traceEvents || [];
		const slice = ev.find((e) => e.cat === 'tap' && e.args && String(e.args.id) === String(t.id));
		const frames = ev.filter((e) => e.cat === 'frame' && (!slice || e.pid === slice.pid));
		const t0 = slice ? slice.ts : null;
		frames.sort((a, b) => a.ts + a.dur - (b.ts + b.dur));
		frames.forEach((f, i) => {
			const row = el('tr');
			row.append(el('td', { class: 'num' }, i),
				el('td', { class: 'num' }, t0 === null ? '–' : ((f.ts - t0) / 1000).toFixed(3)),
				el('td', { class: 'num' }, t0 === null ? '–' : ((f.ts + f.dur - t0) / 1000).toFixed(3)),
				el('td', {}, /after burst/.test(f.name) ? 'no' : 'yes'));
			fb.append(row);
		});
		if (!frames.length)
			$('detail-note').textContent = 'No response frames were stored for this tap.';
		else
			$('detail-note').textContent = 'Times from the touch-up.';
		box.scrollIntoView({ block: 'nearest' });
	}

	$('detail-close').addEventListener('click', () => { $('detail').hidden = true; });

	/* Everything, for the range and session chosen. */
	function report(e) {
		if (!(e instanceof AuthError))
			console.error(e);
	}

	/*
	 * One load at a time; a change made meanwhile loads again once it
	 * ends, so that what is shown is always of the last choice.
	 */
	let loading = null, again = false;
	async function loadAll() {
		if (loading) {
			again = true;
			return loading;
		}
		loading = (async () => {
			do {
				again = false;
				try {
					await loadHealth();
					await loadSessions();
					await loadApps();
					await loadCharts();
					/* Counted once it shows the last choice. */
					if (!again)
						state.loads++;
				} catch (e) {
					report(e);
				}
			} while (again);
			loading = null;
		})();
		return loading;
	}
	state.reload = loadAll;

	$('range').addEventListener('change', () => {
		const custom = $('range').value === 'custom';
		$('custom').hidden = !custom;
		if (custom && !$('since').value) {
			const pad = (d) => new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
			$('until').value = pad(new Date());
			$('since').value = pad(new Date(Date.now() - 3600 * 1000));
		}
		loadAll();
	});
	$('session').addEventListener('change', loadAll);
	$('since').addEventListener('change', loadAll);
	$('until').addEventListener('change', loadAll);
	$('controls').addEventListener('submit', (ev) => {
		ev.preventDefault();
		loadAll();
	});

	let resizeTimer = null;
	window.addEventListener('resize', () => {
		clearTimeout(resizeTimer);
		resizeTimer = setTimeout(() => {
			for (const [name, u] of Object.entries(state.charts)) {
				const box = name === 'series' ? $('series-chart') : $('hist-chart');
				u.setSize({ width: chartWidth(box), height: 220 });
			}
		}, 150);
	});

	setInterval(() => {
		if (!document.hidden && $('token').hidden)
			loadAll();
	}, REFRESH_MS);

	loadAll();
	startFeed();
})();
