// Service worker: keeps every file of the site in the browser's cache so that, after the
// first visit, the page (Python included) works with the network off.
// `lbpe build-web` replaces the marker below with BUILD (a hash of the site's files) and
// PRECACHE (every file of the site, as URLs relative to this script).
const BUILD = "cba8caba4e6e123f";
const PRECACHE = [
 "./",
 "app.js",
 "icon.svg",
 "index.html",
 "panes.js",
 "plotly/LICENSE",
 "plotly/plotly.min.js",
 "pyodide/pyodide-lock.json",
 "pyodide/pyodide.asm.mjs",
 "pyodide/pyodide.asm.wasm",
 "pyodide/pyodide.mjs",
 "pyodide/python_stdlib.zip",
 "site.json",
 "style.css",
 "vocab/default/tokenizer.json",
 "vocab/openai/cl100k_base.tiktoken.gz",
 "vocab/openai/o200k_base.tiktoken.gz",
 "vocab/openai/r50k_base.tiktoken.gz",
 "wheels/lbpe-0.1.0-py3-none-any.whl",
 "worker.js"
];

const CACHE = `lbpe-page-${BUILD}`;
const base = new URL("./", self.location).href;
const urls = PRECACHE.map((path) => new URL(path, base).href);

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // `reload` skips the HTTP cache, so a new build never caches a stale copy.
      await cache.addAll(urls.map((url) => new Request(url, { cache: "reload" })));
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith("lbpe-page-") && name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || !request.url.startsWith(base)) return;
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      // A navigation carries no fragment but may carry a query string: ignore it.
      const hit = await cache.match(request, { ignoreSearch: request.mode === "navigate" });
      if (hit) return hit;
      return fetch(request);
    })(),
  );
});
