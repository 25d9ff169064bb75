// The Firefox half of tests/e2e/ui_firefox.sh: the dashboard in headless
// Firefox over WebDriver BiDi (bidi.js), its table and charts against the
// API's own answers to the same requests, on a laptop's and a phone's
// width.  Prints "ok NAME" / "FAIL NAME" lines for the shell to count.
//
//   node --experimental-websocket ui_firefox.js OUT_DIR URL
'use strict';
const fs = require('fs');
const path = require('path');
const { launch } = require('./bidi.js');

const [outDir, base] = process.argv.slice(2);

function ok(name) {
	console.log('ok   ' + name);
}
function ko(name, ...detail) {
	console.log('FAIL ' + name);
	for (const d of detail)
		console.log('    ' + String(d).slice(0, 800));
}
function check(name, want, got) {
	const a = JSON.stringify(want), b = JSON.stringify(got);
	if (a === b)
		ok(name);
	else
		ko(name, 'expected ' + a, 'got      ' + b);
}

async function api(url) {
	const r = await fetch(base + url);
	if (!r.ok)
		throw new Error(url + ': HTTP ' + r.status);
	return r.json();
}

const READ = `({
	apps: tapdUI.last.apps, series: tapdUI.last.series, histogram: tapdUI.last.histogram,
	rows: [...document.querySelectorAll('#apps tbody tr')].map((tr) => ({ app: tr.dataset.app,
		p90: [...tr.querySelectorAll('td[data-col$=":90"]')].map((td) => [td.dataset.col, td.dataset.v]) })),
	points: tapdUI.charts.series ? tapdUI.charts.series.data[0].length : -1,
	bars: tapdUI.charts.hist ? tapdUI.charts.hist.data[1] : null,
	canvases: document.querySelectorAll('canvas').length,
	width: document.documentElement.scrollWidth,
})`;

async function view(f, name, size) {
	const ctx = await f.open(base + '/', size);
	await f.waitFor(ctx, 'window.tapdUI && tapdUI.loads >= 1 && tapdUI.charts.series && tapdUI.charts.hist', 20000);
	const v = await f.eval(ctx, READ);
	const apps = await api(v.apps);
	check(name + ': the apps of ' + v.apps + ', each with the p90 of every metric',
		apps.apps.map((a) => ({
			app: a.app === null ? '' : a.app,
			p90: Object.entries(a).filter(([, o]) => o && o.percentiles)
				.map(([m, o]) => [m + ':90', o.percentiles['90'] === null ? 'null' : String(o.percentiles['90'])]),
		})).sort((x, y) => (x.app < y.app ? -1 : 1)),
		v.rows.slice().sort((x, y) => (x.app < y.app ? -1 : 1)));
	const series = await api(v.series);
	check(name + ': the time chart has the ' + series.points.length + ' points of the series', series.points.length, v.points);
	const hist = await api(v.histogram);
	check(name + ': the histogram\'s bars are its counts', hist.buckets.map((b) => b.count), v.bars);
	check(name + ': both charts are canvases', 2, v.canvases);
	if (size.width < 600)
		check(name + ': no wider than the screen (' + v.width + ' px)', true, v.width <= size.width);
	await f.shot(ctx, path.join(outDir, 'shots', 'firefox-' + name + '.png'));
}

(async () => {
	fs.mkdirSync(path.join(outDir, 'shots'), { recursive: true });
	const f = await launch(fs.mkdtempSync(path.join(outDir, 'profile-')));
	ok('firefox runs: ' + f.version);
	try {
		await view(f, 'laptop', { width: 1280, height: 900 });
		await view(f, 'phone', { width: 390, height: 844 });
	} finally {
		await f.close();
	}
})().catch((e) => {
	ko('the firefox run', e.stack || String(e));
	process.exitCode = 1;
});
