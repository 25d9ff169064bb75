// The browser half of tests/e2e/ui_browser.sh: headless chromium (cdp.js)
// on the dashboard of three servers, every number it shows compared with
// what the API itself answers to the same request.  Prints "ok NAME" and
// "FAIL NAME" lines (details indented below) for the shell to count.
//
//   node ui_browser.js OUT_DIR SERVE_URL TOKEN_URL TOKEN_FILE LIVE_URL
//
// SERVE_URL: tapd serve of a replayed simulated session; TOKEN_URL: the
// same with --token-file TOKEN_FILE; LIVE_URL: a paced tapd replay
// --listen whose taps come in while the page watches.
'use strict';
const fs = require('fs');
const path = require('path');
const { launch, sleep } = require('./cdp.js');

const [outDir, serveUrl, tokenUrl, tokenFile, liveUrl] = process.argv.slice(2);
const token = fs.readFileSync(tokenFile, 'utf8').split('\n')[0];
const LIVE_WAIT_MS = 2000;

function ok(name) {
	console.log('ok   ' + name);
}
function ko(name, ...detail) {
	console.log('FAIL ' + name);
	for (const d of detail)
		console.log(String(d).split('\n').map((l) => '    ' + l).join('\n'));
}
function check(name, want, got) {
	const a = JSON.stringify(want), b = JSON.stringify(got);
	if (a === b)
		ok(name);
	else
		ko(name, 'expected ' + a.slice(0, 600), 'got      ' + b.slice(0, 600));
}
function holds(name, cond, ...detail) {
	if (cond)
		ok(name);
	else
		ko(name, ...detail);
}

async function apiGet(base, url, tok) {
	const r = await fetch(base + url, { headers: tok ? { Authorization: 'Bearer ' + tok } : {} });
	if (!r.ok)
		throw new Error(url + ': HTTP ' + r.status);
	return r.json();
}

/* The apps table as shown: per row its app and each cell's value and text. */
const READ_TABLE = `(() => ({
	url: tapdUI.last.apps,
	metrics: tapdUI.metrics,
	rows: [...document.querySelectorAll('#apps tbody tr')].map((tr) => ({
		app: tr.getAttribute('data-app'),
		cells: Object.fromEntries([...tr.querySelectorAll('td[data-col]')]
			.filter((td) => td.dataset.col !== 'app')
			.map((td) => [td.dataset.col, { v: td.dataset.v, text: td.textContent }])),
	})),
}))()`;

async function checkTable(page, base, label, tok) {
	const t = await page.eval(READ_TABLE);
	const j = await apiGet(base, t.url, tok);
	check(label + ': one row per app of ' + t.url, j.apps.map((a) => a.app === null ? '' : a.app).sort(),
		t.rows.map((r) => r.app).sort());
	let bad = [];
	let cells = 0;
	for (const a of j.apps) {
		const row = t.rows.find((r) => r.app === (a.app === null ? '' : a.app));
		if (!row)
			continue;
		const want = { count: { v: String(a.count), text: String(a.count) } };
		for (const [s, n] of Object.entries(a.statuses))
			want['status:' + s] = { v: String(n), text: String(n) };
		for (const [m, o] of Object.entries(a)) {
			if (!o || typeof o !== 'object' || !o.percentiles)
				continue;
			for (const p of ['50', '90', '99']) {
				const v = o.percentiles[p];
				want[m + ':' + p] = v === null ? { v: 'null', text: '–' }
					: { v: String(v), text: v.toFixed(1) };
			}
		}
		for (const [k, w] of Object.entries(want)) {
			cells++;
			const c = row.cells[k];
			if (!c || c.v !== w.v || c.text !== w.text)
				bad.push(row.app + ' ' + k + ': API ' + JSON.stringify(w) + ', page ' + JSON.stringify(c || null));
		}
		if (Object.keys(row.cells).length !== Object.keys(want).length)
			bad.push(row.app + ': ' + Object.keys(row.cells).length + ' cells, the API has ' + Object.keys(want).length);
	}
	holds(label + ': all ' + cells + ' cells (counts by status, p50/p90/p99 of ' + t.metrics.join(', ') +
		') equal /v1/apps', bad.length === 0 && cells > 0, ...bad.slice(0, 10));
	return { t, j };
}

async function checkCharts(page, base, label) {
	const s = await page.eval(`(() => { const u = tapdUI.charts.series; return {
		url: tapdUI.last.series, canvas: !!document.querySelector('#series-chart canvas'),
		x: u ? u.data[0] : null, p50: u ? u.data[1] : null, p90: u ? u.data[2] : null }; })()`);
	const js = await apiGet(base, s.url);
	holds(label + ': the time chart is drawn on a canvas', s.canvas);
	check(label + ': the time chart has the ' + js.points.length + ' points of ' + s.url,
		js.points.length, s.x ? s.x.length : -1);
	check(label + ': its times and p50/p90 are the series\'', {
		x: js.points.map((p) => p.start_s), p50: js.points.map((p) => p.percentiles['50']),
		p90: js.points.map((p) => p.percentiles['90']),
	}, { x: s.x, p50: s.p50, p90: s.p90 });
	const h = await page.eval(`(() => { const u = tapdUI.charts.hist; return {
		url: tapdUI.last.histogram, canvas: !!document.querySelector('#hist-chart canvas'),
		x: u ? u.data[0] : null, y: u ? u.data[1] : null }; })()`);
	const jh = await apiGet(base, h.url);
	holds(label + ': the histogram is drawn on a canvas', h.canvas);
	check(label + ': the histogram\'s ' + jh.buckets.length + ' bars are the counts of ' + h.url,
		jh.buckets.map((b) => b.count), h.y);
	return { js, jh };
}

function otherOrigins(page, base) {
	const origin = new URL(base).origin;
	return page.requests.filter((u) => !(u.startsWith('data:') || u.startsWith('about:') ||
		new URL(u).origin === origin));
}

async function main() {
	const shots = path.join(outDir, 'shots');
	fs.mkdirSync(shots, { recursive: true });
	const b = await launch(path.join(outDir, 'profile'));
	ok('chromium runs: ' + b.version);
	try {
		await run(b, shots);
	} finally {
		await b.close();
	}
}

async function run(b, shots) {
	/* The live page first, so that it listens while the rest is checked. */
	const live = await b.newPage({ width: 1280, height: 900 });
	await live.goto(liveUrl + '/');
	await live.waitFor('window.tapdUI && tapdUI.feed.connected', 10000);
	const ref = { times: {}, taps: {} };
	const refAbort = new AbortController();
	const refDone = (async () => {
		const r = await fetch(liveUrl + '/v1/events', { signal: refAbort.signal });
		const reader = r.body.getReader();
		const dec = new TextDecoder();
		let buf = '';
		for (;;) {
			const { value, done } = await reader.read();
			if (done)
				break;
			buf += dec.decode(value, { stream: true });
			let cut;
			while ((cut = buf.indexOf('\n\n')) >= 0) {
				const block = buf.slice(0, cut);
				buf = buf.slice(cut + 2);
				const id = /^id: (\d+)$/m.exec(block);
				const data = /^data: (.*)$/m.exec(block);
				if (id && /^event: tap$/m.test(block)) {
					ref.times[id[1]] = Date.now();
					ref.taps[id[1]] = JSON.parse(data[1]);
				}
			}
		}
	})().catch(() => {});
	ok('the live page is connected to ' + liveUrl + '/v1/events');

	/* The replayed session on a laptop's screen. */
	const page = await b.newPage({ width: 1280, height: 900 });
	await page.goto(serveUrl + '/');
	await page.waitFor('tapdUI.loads >= 1 && tapdUI.charts.series && tapdUI.charts.hist', 15000);
	const { j } = await checkTable(page, serveUrl, '1 h, every app');
	holds('the session has apps to show (' + j.apps.length + ')', j.apps.length >= 3);
	const { js } = await checkCharts(page, serveUrl, '1 h, every app');
	holds('the per-minute series has several points (' + js.points.length + ', step ' + js.step_s + ' s)',
		js.points.length >= 5 && js.step_s === 60);
	await page.shot(path.join(shots, 'desktop.png'));

	/* An app chosen from the table drives the charts. */
	const app = j.apps.filter((a) => a.app !== null).sort((x, y) => y.count - x.count)[0].app;
	await page.eval(`document.querySelector('#apps tbody tr[data-app="${app}"] td').click()`);
	await page.waitFor(`tapdUI.last.series.includes('app=${app}') && tapdUI.last.histogram.includes('app=${app}')
		&& tapdUI.charts.hist && tapdUI.histogram && tapdUI.histogram.app === '${app}'
		&& tapdUI.series && tapdUI.series.app === '${app}'`, 10000);
	await checkCharts(page, serveUrl, 'app ' + app);
	/* And the settle metric. */
	await page.eval(`(() => { const s = document.getElementById('metric'); s.value = 'settle';
		s.dispatchEvent(new Event('change')); })()`);
	await page.waitFor(`tapdUI.series && tapdUI.series.metric === 'settle' && tapdUI.histogram.metric === 'settle'`, 10000);
	await checkCharts(page, serveUrl, 'app ' + app + ', settle');
	await page.shot(path.join(shots, 'desktop-app.png'));

	/* The range picker drives every panel. */
	const loads = await page.eval('tapdUI.loads');
	await page.eval(`(() => { const s = document.getElementById('range'); s.value = '15m';
		s.dispatchEvent(new Event('change')); })()`);
	await page.waitFor('tapdUI.loads > ' + loads, 10000);
	const since = await page.eval('Object.values(tapdUI.last).map((u) => new URL(u, location).searchParams.get("since"))');
	const now = Math.floor(Date.now() / 1000);
	holds('15 min: every panel asks since now - 15 min (' + since.join(', ') + ')',
		since.length === 3 && since.every((s) => Math.abs(Number(s) - (now - 900)) <= 60), since);
	await checkTable(page, serveUrl, '15 min');
	await checkCharts(page, serveUrl, '15 min');

	/* A custom range of the last 5 minutes. */
	const loads2 = await page.eval('tapdUI.loads');
	await page.eval(`(() => { const s = document.getElementById('range'); s.value = 'custom';
		const pad = (d) => new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
		document.getElementById('since').value = pad(new Date(Date.now() - 5 * 60000));
		document.getElementById('until').value = pad(new Date(Date.now() + 60000));
		s.dispatchEvent(new Event('change')); })()`);
	await page.waitFor('tapdUI.loads > ' + loads2 + ' && tapdUI.last.apps.includes("until=")', 10000);
	await checkTable(page, serveUrl, 'custom 5 min');
	await checkCharts(page, serveUrl, 'custom 5 min');

	const bad = otherOrigins(page, serveUrl);
	holds('the page asked ' + page.requests.length + ' URLs, all of its own origin', bad.length === 0, ...bad);
	holds('no script error on the page', page.console.length === 0, ...page.console);

	/* A phone's screen: nothing wider than it. */
	const phone = await b.newPage({ width: 390, height: 844, mobile: true });
	await phone.goto(serveUrl + '/');
	await phone.waitFor('tapdUI.loads >= 1 && tapdUI.charts.series', 15000);
	/* A page wider than its viewport would make the phone zoom out. */
	const widths = await phone.eval(`({ doc: document.documentElement.scrollWidth,
		wide: [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > 391
			&& !e.closest('.scroll')).slice(0, 5).map((e) => e.tagName + '#' + e.id + '.' + e.className) })`);
	holds('on a phone (390 px) the page is no wider than the screen (' + widths.doc + ' px)',
		widths.doc <= 390, JSON.stringify(widths));
	await checkTable(phone, serveUrl, 'phone');
	await phone.shot(path.join(shots, 'phone.png'));

	/* The columns follow the metrics /v1/apps gives, in its order. */
	const given = await apiGet(serveUrl, '/v1/apps');
	const metricsOf = (a) => Object.keys(a).filter((k) => a[k] && typeof a[k] === 'object' && 'percentiles' in a[k]);
	const want = given.apps.length ? metricsOf(given.apps[0]) : [];
	holds('/v1/apps gives the launch metrics beside the two latencies',
		want.includes('launch_first_frame') && want.includes('launch_settle'), JSON.stringify(want));
	const heads = await page.eval('[...document.querySelectorAll("#apps th[data-metric]")].map((t) => t.dataset.metric)');
	check('the table has a column group per metric of /v1/apps', want, heads);
	/*
	 * An answer without launch_settle and with other launch numbers (as
	 * an older daemon, or one that measured otherwise, gives), put in the
	 * page's way by the browser: the columns and choices follow it, with
	 * the numbers of that answer.
	 */
	const lp = await b.newPage({ width: 1280, height: 900 });
	await lp.intercept('*/v1/apps?*', (text) => {
		const j = JSON.parse(text);
		j.apps.forEach((a, i) => {
			delete a.launch_settle;
			a.launch_first_frame = { count: 1 + i, method: 'exact', percentiles: { 50: 300 + i, 90: 400.25 + i, 99: null } };
		});
		return JSON.stringify(j);
	});
	await lp.goto(serveUrl + '/');
	await lp.waitFor('tapdUI.loads >= 1', 15000);
	const lh = await lp.eval(`({ heads: [...document.querySelectorAll('#apps th[data-metric]')].map((t) => t.dataset.metric),
		choices: [...document.querySelectorAll('#metric option')].map((o) => o.value),
		cells: [...document.querySelectorAll('#apps tbody tr')].map((tr) =>
			[...tr.querySelectorAll('td[data-col^="launch_first_frame:"]')].map((td) => td.textContent)) })`);
	const less = want.filter((m) => m !== 'launch_settle');
	check('an answer without launch_settle: its columns', less, lh.heads);
	check('and its choices for the charts', less, lh.choices);
	holds('with their values (p50, p90, p99 of each app)', lh.cells.length >= 3 &&
		lh.cells.every((c) => c.length === 3 && /^3\d\d\.0$/.test(c[0]) && /^4\d\d\.3$/.test(c[1]) && c[2] === '–'),
		JSON.stringify(lh.cells));

	/* A daemon that wants its token: asked, then used. */
	const tp = await b.newPage({ width: 1280, height: 900 });
	await tp.goto(tokenUrl + '/');
	await tp.waitFor('!document.getElementById("token").hidden', 10000);
	holds('with a token required, the page asks for it and shows no data',
		(await tp.eval('document.querySelectorAll("#apps tbody tr").length')) === 0);
	await tp.shot(path.join(shots, 'token.png'));
	await tp.eval(`(() => { document.getElementById('token-input').value = 'wrong-token-of-16-chars';
		document.getElementById('token-form').requestSubmit(); })()`);
	await tp.waitFor('!document.getElementById("token").hidden && document.getElementById("token-error").textContent', 10000);
	ok('a wrong token is refused and asked for again');
	await tp.eval(`(() => { document.getElementById('token-input').value = ${JSON.stringify(token)};
		document.getElementById('token-form').requestSubmit(); })()`);
	await tp.waitFor('tapdUI.loads >= 1 && document.getElementById("token").hidden', 10000);
	await checkTable(tp, tokenUrl, 'with the token', token);
	holds('the token is kept in the tab (sessionStorage)',
		(await tp.eval('sessionStorage.getItem("tapd.token")')) === token);
	await tp.waitFor('tapdUI.feed.connected', 10000);
	ok('the live feed connects with the token');
	const tbad = otherOrigins(tp, tokenUrl);
	holds('the token page asked only its own origin', tbad.length === 0, ...tbad);

	/* Sessions on the live replay, which can write: start, filter, stop. */
	await live.eval(`(() => { document.getElementById('session-name').value = 'browser run';
		document.getElementById('session-form').requestSubmit(); })()`);
	await live.waitFor(`tapdUI.openSession && tapdUI.openSession.name === 'browser run'`, 10000);
	let ss = await apiGet(liveUrl, '/v1/sessions');
	const open = ss.sessions.find((s) => s.name === 'browser run');
	holds('a session started from the page is open in /v1/sessions', open && open.stopped === null,
		JSON.stringify(ss));
	await live.eval(`(() => { const s = document.getElementById('session'); s.value = '${open ? open.id : 0}';
		s.dispatchEvent(new Event('change')); })()`);
	await live.waitFor(`tapdUI.last.apps && tapdUI.last.apps.includes('session=${open ? open.id : 0}')
		&& tapdUI.last.series.includes('session=') && tapdUI.last.histogram.includes('session=')`, 10000);
	ok('filtering by the session puts session=' + (open ? open.id : '?') + ' on every panel');
	await live.shot(path.join(shots, 'sessions.png'));

	/* The live feed: every tap the reference reader got, within 2 s. */
	await sleep(1500);
	await live.until(async () => Object.keys(ref.times).length >= 5, 30000, 'five live taps');
	await sleep(LIVE_WAIT_MS + 200);
	const shown = await live.eval('({ received: tapdUI.feed.received, rows: [...document.querySelectorAll("#feed tbody tr")].map((r) => r.dataset.id) })');
	const late = [];
	let n = 0;
	for (const [id, t] of Object.entries(ref.times)) {
		n++;
		const at = shown.received[id];
		if (at === undefined || at - t > LIVE_WAIT_MS || !shown.rows.includes(id))
			late.push('tap ' + id + ': the stream had it at ' + t + ', the page ' + (at === undefined ? 'never' : 'at ' + at));
	}
	holds('all ' + n + ' taps of the live replay appear in the feed within 2 s of their event', late.length === 0 && n >= 5, ...late);
	const delays = Object.entries(ref.times).map(([id, t]) => shown.received[id] - t).filter((d) => !isNaN(d));
	console.log('     (feed delay behind a reader of the same stream: max ' + Math.max(...delays) + ' ms)');

	await live.eval(`(() => { const s = document.getElementById('session'); s.value = '';
		s.dispatchEvent(new Event('change')); })()`);
	await live.eval(`document.getElementById('session-stop').click()`);
	await live.waitFor('!tapdUI.openSession', 10000);
	ss = await apiGet(liveUrl, '/v1/sessions');
	const stopped = ss.sessions.find((s) => s.name === 'browser run');
	holds('stopping it from the page stops it in /v1/sessions', stopped && stopped.stopped !== null);

	/* A tap's details from a feed row. */
	const id = shown.rows.find((r) => ref.taps[r] && ref.taps[r].frames > 0) || shown.rows[0];
	const tap = ref.taps[id];
	await live.eval(`document.querySelector('#feed tbody tr[data-id="${id}"] td').click()`);
	await live.waitFor(`!document.getElementById('detail').hidden && document.getElementById('detail-note').textContent`, 10000);
	const d = await live.eval(`({ id: document.getElementById('detail-id').textContent,
		fields: Object.fromEntries([...document.querySelectorAll('#detail-fields dt')].map((dt) => [dt.textContent, dt.nextSibling.textContent])),
		frames: document.querySelectorAll('#detail-frames tbody tr').length })`);
	check('the details open on tap #' + id, '#' + id, d.id);
	check('they show its app, kind, status and window', [tap.app, tap.kind, tap.status, tap.window === null ? 'none' : String(tap.window)],
		[d.fields.app, d.fields.kind, d.fields.status, d.fields.window]);
	check('and its ' + tap.frames + ' response frames', tap.frames, d.frames);
	await live.shot(path.join(shots, 'live.png'));
	const lbad = otherOrigins(live, liveUrl);
	holds('the live page asked only its own origin', lbad.length === 0, ...lbad);
	refAbort.abort();
	await refDone;
}

main().catch((e) => {
	ko('the browser run', e.stack || String(e));
	process.exitCode = 1;
});
