// Runs OpenClaw's own memory search for many queries in one Node process.
//
// `openclaw memory search --json` loads the whole CLI (tens of CPU seconds per call
// on this machine); this driver does what that command does -- load the config,
// `getMemorySearchManager({cfg, agentId})`, `manager.search(query, {maxResults,
// minScore})`, print `{results}` -- once per query from a JSON-lines request file.
// The recorder checks a few queries against the real CLI so the two cannot drift.
//
// usage: node openclaw_search_driver.mjs <openclaw dist dir> <requests.jsonl>
//   each request: {"query": "...", "maxResults": n|null, "minScore": x|null}
//   each output line: {"query", "maxResults", "minScore", "results"} or {"error"}
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [distDir, requestsFile] = process.argv.slice(2);

function findExport(name) {
  const re = new RegExp(`export \\{[^}]*\\b${name} as (\\w+)`);
  for (const file of fs.readdirSync(distDir)) {
    if (!/\.(m?js)$/.test(file)) continue;
    const text = fs.readFileSync(path.join(distDir, file), "utf8");
    if (!text.includes(`${name} as`)) continue;
    const m = re.exec(text);
    if (m) return { file: path.join(distDir, file), alias: m[1] };
  }
  throw new Error(`no module in ${distDir} exports ${name}`);
}

async function load(name) {
  const { file, alias } = findExport(name);
  const mod = await import(pathToFileURL(file).href);
  return mod[alias];
}

const getMemorySearchManager = await load("getMemorySearchManager");
let cfg;
try {
  const getRuntimeConfig = await load("getRuntimeConfig");
  cfg = getRuntimeConfig({ skipPluginValidation: true });
} catch {
  const loadConfig = await load("loadConfig");
  cfg = loadConfig();
}
// 2026.9: embedding providers such as `local` are plugins (@openclaw/llama-cpp-provider):
// load the plugin registry for the memory scope first, as the CLI does before `memory
// search`; without it the manager silently runs keyword-only. 2026.4 has no such module.
const registry = fs
  .readdirSync(distDir)
  .filter((n) => /^plugin-registry-.*\.mjs$/.test(n))
  .find((n) => fs.readFileSync(path.join(distDir, n), "utf8").includes("export { ensurePluginRegistryLoaded }"));
if (registry) {
  const { ensurePluginRegistryLoaded } = await import(pathToFileURL(path.join(distDir, registry)).href);
  ensurePluginRegistryLoaded({ scope: "memory", config: cfg });
}
const got = await getMemorySearchManager({ cfg, agentId: "main", purpose: "cli", inspectSources: true });
const manager = got?.manager ?? got;
if (!manager || typeof manager.search !== "function") {
  process.stdout.write(JSON.stringify({ error: `no memory manager: ${got?.error ?? "unknown"}` }) + "\n");
  process.exit(2);
}
const requests = fs.readFileSync(requestsFile, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
for (const req of requests) {
  const opts = {};
  if (req.maxResults != null) opts.maxResults = req.maxResults;
  if (req.minScore != null) opts.minScore = req.minScore;
  try {
    const results = await manager.search(req.query, opts);
    process.stdout.write(JSON.stringify({ ...req, results }) + "\n");
  } catch (err) {
    process.stdout.write(JSON.stringify({ ...req, error: String(err?.message ?? err) }) + "\n");
  }
}
await manager.close?.();
process.exit(0);
