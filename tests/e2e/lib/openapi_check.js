/*
 * The checks of tests/e2e/openapi.sh, under node with the packages of
 * tests/npm (NODE_PATH):
 *
 *   node openapi_check.js SPEC API_C SAMPLES
 *
 * SPEC (docs/openapi.yaml) must be a valid OpenAPI 3.1 document
 * (@seriousme/openapi-schema-validator); every route of the table in
 * API_C (daemon/api.c), with each method it allows, must be a path and
 * operation of SPEC (a prefix route "/x/*" the path "/x/{file}"), and SPEC
 * may hold no other; and every sample of
 * SAMPLES (one JSON object a line: method, path as requested, status,
 * content type, body file) must be a response SPEC describes: its
 * status among the operation's responses (or its default), its content
 * type among that response's (no body when it has none, as a 304), and
 * its body valid against the schema
 * (ajv, JSON Schema 2020-12; NDJSON line by line, and the data of each
 * tap event of an event stream against the Tap schema).  Prints one line per
 * check, "ok ..." or "FAIL ...", and exits 0.
 */
"use strict";
const fs = require("fs");
const path = require("path");
const { pathToFileURL } = require("url");

const modules = process.env.NODE_PATH;
const YAML = require("yaml");
const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats").default;

function say(ok, what, detail) {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok && detail) console.log(String(detail).replace(/^/gm, "    "));
}

/* The routes of api.c's table: path (or the stop pattern) and methods. */
function routes(apiC) {
  const text = fs.readFileSync(apiC, "utf8");
  const table = text.match(/api_routes\[\] = \{([\s\S]*?)\n\};/);
  if (!table) throw new Error(`no api_routes table in '${apiC}'`);
  const out = [];
  for (const m of table[1].matchAll(/\{\s*(NULL|"([^"]*)")\s*,[^{}]*?"([A-Z, ]+)"\s*\}/g)) {
    /*
     * The stop pattern is a path with its id; a prefix ending in '*'
     * (the dashboard's "/ui/*") one with a last parameter, "/ui/{file}".
     */
    let p = m[1] === "NULL" ? "/v1/sessions/{id}/stop" : m[2];
    if (p.endsWith("*")) p = p.slice(0, -1) + "{file}";
    const methods = m[3].split(",").map((s) => s.trim().toLowerCase())
      .filter((s) => s !== "head");
    out.push({ path: p, methods });
  }
  return out;
}

/* The path template of SPEC that a requested path matches. */
function template(spec, p) {
  const bare = p.split("?")[0];
  for (const t of Object.keys(spec.paths)) {
    const re = new RegExp("^" + t.replace(/\{[^}]+\}/g, "[^/]+") + "$");
    if (re.test(bare)) return t;
  }
  return null;
}

function pointer(...parts) {
  return "#/" + parts.map((s) => String(s).replace(/~/g, "~0").replace(/\//g, "~1")).join("/");
}

async function main() {
  const [specPath, apiC, samplesPath] = process.argv.slice(2);
  const spec = YAML.parse(fs.readFileSync(specPath, "utf8"));

  const { Validator } = await import(pathToFileURL(
    path.join(modules, "@seriousme/openapi-schema-validator/index.js")).href);
  const v = new Validator();
  const res = await v.validate(spec);
  say(res.valid, `${path.basename(specPath)} is a valid OpenAPI ${spec.openapi} document`,
      JSON.stringify(res.errors, null, 1));

  /* Every route described, every description a route. */
  const table = routes(apiC);
  say(table.length > 0, `api.c's route table read (${table.length} routes)`);
  for (const r of table) {
    const item = spec.paths[r.path];
    for (const m of r.methods)
      say(item && item[m], `${m.toUpperCase()} ${r.path} is described`,
          item ? `the spec has ${Object.keys(item).join(", ")}` : "no such path in the spec");
  }
  for (const [p, item] of Object.entries(spec.paths)) {
    for (const m of Object.keys(item).filter((k) => ["get", "post", "put", "delete", "patch"].includes(k))) {
      const r = table.find((x) => x.path === p);
      say(r && r.methods.includes(m), `${m.toUpperCase()} ${p} of the spec is a route of api.c`);
    }
  }

  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(spec, "spec");
  const seen = new Set();
  const lines = fs.readFileSync(samplesPath, "utf8").split("\n").filter(Boolean);
  for (const line of lines) {
    const s = JSON.parse(line);
    const what = `${s.method} ${s.path} ${s.status}`;
    const t = template(spec, s.path);
    const op = t && spec.paths[t][s.method.toLowerCase()];
    if (!op) {
      say(false, `${what}: an operation of the spec`);
      continue;
    }
    const code = op.responses[String(s.status)] ? String(s.status) : "default";
    let resp = op.responses[code];
    if (!resp) {
      say(false, `${what}: a status the spec gives`);
      continue;
    }
    let at = ["paths", t, s.method.toLowerCase(), "responses", code];
    if (resp.$ref) {
      at = resp.$ref.slice(2).split("/");
      resp = at.reduce((o, k) => o[k], spec);
    }
    const ctype = (s.ctype || "").split(";")[0].trim();
    if (!resp.content) {
      /* A response without content (304) must come without a body. */
      const size = fs.statSync(s.body).size;
      say(size === 0, `${what}: no body, as the spec says`, `${size} bytes`);
      continue;
    }
    if (!resp.content[ctype]) {
      say(false, `${what}: content type '${ctype}' is one the spec gives`,
          resp.content ? Object.keys(resp.content).join(", ") : "no content");
      continue;
    }
    const validate = ajv.getSchema("spec" + pointer(...at, "content", ctype, "schema"));
    const body = fs.readFileSync(s.body, "utf8");
    let docs;
    try {
      if (ctype === "application/json") docs = [JSON.parse(body)];
      else if (ctype === "application/x-ndjson")
        docs = body.split("\n").filter(Boolean).map((l) => JSON.parse(l));
      else docs = [body];
      if (ctype === "text/event-stream") {
        /* And each tap event's data is a tap, as the description says. */
        const taps = body.split("\n\n").filter((e) => /^event: tap$/m.test(e))
          .map((e) => JSON.parse(e.match(/^data: (.*)$/m)[1]));
        const tap = ajv.getSchema("spec#/components/schemas/Tap");
        const badTaps = taps.filter((d) => !tap(d));
        say(taps.length > 0 && badTaps.length === 0,
            `${what}: ${taps.length} tap events, each a Tap`, JSON.stringify(badTaps[0]));
      }
    } catch (e) {
      say(false, `${what}: the body parses as ${ctype}`, e.message);
      continue;
    }
    const bad = docs.map((d) => (validate(d) ? null : ajv.errorsText(validate.errors)))
      .filter((x) => x !== null);
    say(bad.length === 0 && docs.length > 0,
        `${what} ${ctype}: ${docs.length} document(s) valid against the spec`, bad.slice(0, 3).join("\n"));
    seen.add(`${s.method.toLowerCase()} ${t}`);
  }
  /* Each operation answered for real at least once. */
  for (const [p, item] of Object.entries(spec.paths))
    for (const m of Object.keys(item).filter((k) => ["get", "post"].includes(k)))
      say(seen.has(`${m} ${p}`), `${m.toUpperCase()} ${p}: a real response validated`);
}

main().catch((e) => {
  say(false, "the checks ran", e.stack);
});
