// A small client of WebDriver BiDi, the protocol Firefox speaks to a test
// (--remote-debugging-port), over Node.js's own WebSocket (node
// --experimental-websocket on Node 20): no package.
//
//   const f = await launch(profileDir);      (on a free loopback port)
//   const ctx = await f.open(url, {width, height});
//   await f.eval(ctx, 'document.title'); await f.shot(ctx, file);
//   await f.close();
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');

const FIREFOX = process.env.FIREFOX || 'firefox-esr';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function launch(profile) {
	/* Port 0: Firefox picks a free one and says which. */
	const proc = spawn(FIREFOX, ['--headless', '--no-remote', '--profile', profile,
		'--remote-debugging-port=0', 'about:blank'], { stdio: ['ignore', 'pipe', 'pipe'] });
	let err = '';
	proc.stderr.on('data', (d) => { err = (err + d).slice(-8000); });
	for (let i = 0; i < 300 && !/WebDriver BiDi listening/.test(err); i++) {
		if (proc.exitCode !== null)
			break;
		await sleep(100);
	}
	if (!/WebDriver BiDi listening/.test(err)) {
		proc.kill('SIGKILL');
		throw new Error('firefox did not start its BiDi server: ' + err.slice(-1000));
	}
	const port = /WebDriver BiDi listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(err)[1];
	const ws = new WebSocket('ws://127.0.0.1:' + port + '/session');
	await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = () => reject(new Error('cannot connect to firefox')); });
	let next = 0;
	const pending = new Map();
	ws.onmessage = (m) => {
		const j = JSON.parse(m.data);
		if (j.id !== undefined && pending.has(j.id)) {
			const p = pending.get(j.id);
			pending.delete(j.id);
			if (j.type === 'error')
				p.reject(new Error(p.method + ': ' + j.error + ': ' + j.message));
			else
				p.resolve(j.result);
		}
	};
	const send = (method, params) => new Promise((resolve, reject) => {
		const id = ++next;
		pending.set(id, { resolve, reject, method });
		ws.send(JSON.stringify({ id, method, params: params || {} }));
	});
	const s = await send('session.new', { capabilities: {} });
	const f = {
		version: s.capabilities.browserName + ' ' + s.capabilities.browserVersion,
		send,
		async open(url, view) {
			const tree = await send('browsingContext.getTree', {});
			const ctx = tree.contexts[0].context;
			await send('browsingContext.setViewport', { context: ctx, viewport: view });
			await send('browsingContext.navigate', { context: ctx, url, wait: 'complete' });
			return ctx;
		},
		async eval(ctx, expr) {
			const r = await send('script.evaluate', {
				expression: 'JSON.stringify(' + expr + ')', target: { context: ctx },
				awaitPromise: true,
			});
			if (r.type === 'exception')
				throw new Error('page: ' + (r.exceptionDetails && r.exceptionDetails.text));
			return JSON.parse(r.result.value);
		},
		async waitFor(ctx, expr, timeoutMs) {
			const end = Date.now() + timeoutMs;
			for (;;) {
				if (await f.eval(ctx, '!!(' + expr + ')').catch(() => false))
					return;
				if (Date.now() > end)
					throw new Error('timed out waiting for ' + expr);
				await sleep(100);
			}
		},
		async shot(ctx, file) {
			const r = await send('browsingContext.captureScreenshot', { context: ctx, origin: 'document' });
			fs.writeFileSync(file, Buffer.from(r.data, 'base64'));
		},
		async close() {
			try {
				await Promise.race([send('session.end'), sleep(2000)]);
			} catch (e) {
				/* It is going anyway. */
			}
			ws.close();
			proc.kill('SIGTERM');
			for (let i = 0; i < 30 && proc.exitCode === null && proc.signalCode === null; i++)
				await sleep(100);
			if (proc.exitCode === null && proc.signalCode === null)
				proc.kill('SIGKILL');
		},
	};
	return f;
}

module.exports = { launch, sleep };
