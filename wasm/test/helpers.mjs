// Shared by the node tests: paths, the native results, and a static file server for www/.
import { spawnSync } from "node:child_process";
import { readFileSync, existsSync, createReadStream, statSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, join, extname, normalize } from "node:path";
import { fileURLToPath } from "node:url";

export const WASM_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
export const WORKSPACE = process.env.MLSCHED_WORKSPACE || join(WASM_DIR, "..");

/** `[{name, policy, all_categories, ok | error}]` computed natively by `mlsched_scenario::run::run_json`
 *  (file from $MLSCHED_NATIVE_RESULTS, written by scripts/ci.sh, else `cargo run --example`). */
export function nativeResults() {
  const f = process.env.MLSCHED_NATIVE_RESULTS;
  if (f && existsSync(f)) return JSON.parse(readFileSync(f, "utf8"));
  const r = spawnSync("cargo", ["run", "-q", "-p", "mlsched-wasm", "--example", "native_results"], {
    cwd: WORKSPACE, encoding: "utf8", maxBuffer: 1 << 28,
  });
  if (r.status !== 0) throw new Error("cargo run --example native_results failed:\n" + r.stderr);
  return JSON.parse(r.stdout);
}

const MIME = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm", ".json": "application/json" };

/** Serves `root` on 127.0.0.1 (random port); resolves to {url, close}. */
export function serve(root) {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
    let file = join(root, path);
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, "index.html");
    if (!file.startsWith(root) || !existsSync(file)) { res.writeHead(404); res.end("not found"); return; }
    res.writeHead(200, { "content-type": MIME[extname(file)] || "application/octet-stream" });
    createReadStream(file).pipe(res);
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok({
    url: `http://127.0.0.1:${server.address().port}/`,
    close: () => new Promise((done) => server.close(done)),
  })));
}
