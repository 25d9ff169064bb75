// A small client of the Chrome DevTools protocol over --remote-debugging-pipe
// (file descriptors 3 and 4, one JSON message per NUL-terminated frame), so
// that a test drives Debian's chromium with nothing but Node.js itself: no
// WebSocket, no package.
//
//   const b = await launch(userDataDir);
//   const page = await b.newPage({width, height, mobile});
//   await page.goto(url); await page.eval('1 + 1'); await page.shot(file);
//   page.requests: every URL the page asked for (Network.requestWillBeSent)
//   await b.close();
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');

const CHROMIUM = process.env.CHROMIUM || 'chromium';

class Browser {
	constructor(proc) {
		this.proc = proc;
		this.next = 1;
		this.pending = new Map();
		this.listeners = [];
		let buf = Buffer.alloc(0);
		proc.stdio[4].on('data', (chunk) => {
			buf = Buffer.concat([buf, chunk]);
			let i;
			while ((i = buf.indexOf(0)) >= 0) {
				const msg = JSON.parse(buf.subarray(0, i).toString('utf8'));
				buf = buf.subarray(i + 1);
				this.dispatch(msg);
			}
		});
		proc.on('exit', (code, sig) => {
			for (const [, p] of this.pending)
				p.reject(new Error('chromium exited (' + (code === null ? sig : code) + ')'));
			this.pending.clear();
		});
	}

	dispatch(msg) {
		if (msg.id !== undefined) {
			const p = this.pending.get(msg.id);
			if (!p)
				return;
			this.pending.delete(msg.id);
			if (msg.error)
				p.reject(new Error(p.method + ': ' + msg.error.message));
			else
				p.resolve(msg.result);
			return;
		}
		for (const l of this.listeners)
			l(msg.method, msg.params, msg.sessionId);
	}

	send(method, params, sessionId) {
		const id = this.next++;
		const msg = { id, method, params: params || {} };
		if (sessionId)
			msg.sessionId = sessionId;
		return new Promise((resolve, reject) => {
			this.pending.set(id, { resolve, reject, method });
			this.proc.stdio[3].write(JSON.stringify(msg) + '\0');
		});
	}

	async newPage(view) {
		const { targetId } = await this.send('Target.createTarget', { url: 'about:blank' });
		const { sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true });
		const page = new Page(this, sessionId, view);
		await page.init();
		return page;
	}

	async close() {
		try {
			await Promise.race([this.send('Browser.close'), sleep(3000)]);
		} catch (e) {
			/* It is going anyway. */
		}
		if (this.proc.exitCode === null)
			this.proc.kill('SIGKILL');
	}
}

class Page {
	constructor(browser, sessionId, view) {
		this.b = browser;
		this.sid = sessionId;
		this.view = Object.assign({ width: 1280, height: 900, mobile: false }, view || {});
		this.requests = [];
		this.console = [];
		this.loads = 0;
		browser.listeners.push((method, params, sid) => {
			if (sid !== this.sid)
				return;
			if (method === 'Network.requestWillBeSent')
				this.requests.push(params.request.url);
			else if (method === 'Page.loadEventFired')
				this.loads++;
			else if (method === 'Runtime.exceptionThrown')
				this.console.push('exception: ' + JSON.stringify(params.exceptionDetails).slice(0, 400));
			else if (method === 'Runtime.consoleAPICalled' && params.type === 'error')
				this.console.push('console.error: ' + params.args.map((a) => a.value || a.description).join(' '));
		});
	}

	send(method, params) {
		return this.b.send(method, params, this.sid);
	}

	/*
	 * Rewrites the answers whose URL matches pattern (Fetch's wildcards):
	 * edit(text) gives the body the page sees instead of the server's.
	 */
	async intercept(pattern, edit) {
		this.b.listeners.push(async (method, params, sid) => {
			if (sid !== this.sid || method !== 'Fetch.requestPaused')
				return;
			try {
				const r = await this.send('Fetch.getResponseBody', { requestId: params.requestId });
				const text = r.base64Encoded ? Buffer.from(r.body, 'base64').toString('utf8') : r.body;
				await this.send('Fetch.fulfillRequest', {
					requestId: params.requestId, responseCode: params.responseStatusCode,
					responseHeaders: params.responseHeaders,
					body: Buffer.from(edit(text), 'utf8').toString('base64'),
				});
			} catch (e) {
				await this.send('Fetch.continueRequest', { requestId: params.requestId }).catch(() => {});
			}
		});
		await this.send('Fetch.enable', { patterns: [{ urlPattern: pattern, requestStage: 'Response' }] });
	}

	async init() {
		await this.send('Network.enable');
		await this.send('Page.enable');
		await this.send('Runtime.enable');
		await this.send('Emulation.setDeviceMetricsOverride', {
			width: this.view.width, height: this.view.height,
			deviceScaleFactor: 1, mobile: this.view.mobile,
		});
	}

	async goto(url, timeoutMs) {
		const before = this.loads;
		await this.send('Page.navigate', { url });
		await this.until(() => this.loads > before, timeoutMs || 10000, 'the load of ' + url);
	}

	async eval(expr) {
		const r = await this.send('Runtime.evaluate', {
			expression: expr, awaitPromise: true, returnByValue: true,
		});
		if (r.exceptionDetails)
			throw new Error('page: ' + (r.exceptionDetails.exception
				? r.exceptionDetails.exception.description : r.exceptionDetails.text));
		return r.result.value;
	}

	async until(cond, timeoutMs, what) {
		const end = Date.now() + timeoutMs;
		for (;;) {
			if (await cond())
				return;
			if (Date.now() > end)
				throw new Error('timed out waiting for ' + what);
			await sleep(50);
		}
	}

	/* Waits until the page's expression is true. */
	waitFor(expr, timeoutMs) {
		return this.until(() => this.eval('!!(' + expr + ')').catch(() => false),
			timeoutMs || 10000, expr);
	}

	/* The whole page, as tall as its content, as a PNG. */
	async shot(file) {
		/* From the top, where the sticky header belongs. */
		await this.eval('window.scrollTo(0, 0)');
		const m = await this.send('Page.getLayoutMetrics');
		const h = Math.ceil(m.cssContentSize.height);
		const r = await this.send('Page.captureScreenshot', {
			format: 'png', captureBeyondViewport: true,
			clip: { x: 0, y: 0, width: this.view.width, height: Math.min(h, 6000), scale: 1 },
		});
		fs.writeFileSync(file, Buffer.from(r.data, 'base64'));
	}
}

function sleep(ms) {
	return new Promise((r) => setTimeout(r, ms));
}

function launch(userDataDir) {
	const proc = spawn(CHROMIUM, [
		'--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
		'--no-first-run', '--disable-background-networking',
		'--disable-component-update', '--disable-sync',
		'--disable-dev-shm-usage', '--remote-debugging-pipe',
		'--user-data-dir=' + userDataDir, 'about:blank',
	], { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
	let err = '';
	proc.stderr.on('data', (d) => { err = (err + d).slice(-4000); });
	const b = new Browser(proc);
	b.stderr = () => err;
	return b.send('Browser.getVersion').then((v) => {
		b.version = v.product;
		return b;
	});
}

module.exports = { launch, sleep };
