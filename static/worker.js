// The page's Python: Pyodide plus the lbpe wheel, in a Web Worker so the page never freezes.
// Every URL is relative to this file, so the site works from any folder of any static host.
// Tokenisation, rendering and the chart's data all come from Python (lbpe.playground.page); this file
// only moves bytes and messages.
import { loadPyodide } from "./pyodide/pyodide.mjs";

const here = (path) => new URL(path, import.meta.url).href;
let py = null; // the Pyodide instance
let page = null; // the Python module lbpe.playground.page
let uploads = 0;
let site = null; // site.json: the presets and where their files are
// seconds per start-up step, of the first comparison and of each vocabulary's warm-up (by name), for
// bench/web_speed.py
const timings = {};

function progress(text) {
  self.postMessage({ type: "progress", text });
}

async function fetchBytes(url) {
  const response = await fetch(here(url));
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

async function start() {
  const t0 = performance.now();
  const lap = (name, since) => {
    timings[name] = (performance.now() - since) / 1000;
    return performance.now();
  };
  progress("Loading Python (Pyodide)…");
  let t = performance.now();
  // Python starts at once; the wheel and the vocabulary download meanwhile.
  const python = loadPyodide({ indexURL: here("pyodide/"), stdout: () => {}, stderr: (s) => console.warn(s) });
  site = await (await fetch(here("site.json"))).json();
  const wheel = fetchBytes(site.wheel);
  const preset = site.presets.find((p) => p.name === site.default_preset);
  const vocab = fetchOnce(`vocab/${preset.file}`);
  py = await python;
  t = lap("pyodide", t);
  progress("Installing lbpe…");
  // The wheel is unpacked into site-packages; loadPackage is never used (it would reach a CDN).
  const sitePackages = py.runPython("import site; site.getsitepackages()[0]");
  py.unpackArchive(await wheel, "wheel", { extractDir: sitePackages });
  page = py.pyimport("lbpe.playground.page");
  t = lap("lbpe", t);
  progress(`Loading the ${site.default_preset} vocabulary…`);
  await vocab;
  const info = JSON.parse(await usePreset(site.default_preset));
  lap("vocabulary", t);
  return {
    site,
    info,
    css: page.css(),
    examples: JSON.parse(page.examples()),
    methods: JSON.parse(page.methods()),
    python: py.runPython("import sys; sys.version.split()[0]"),
    seconds: (performance.now() - t0) / 1000,
    timings,
  };
}

const fetched = new Map(); // URL -> Promise of its bytes (a vocabulary is fetched once)

function fetchOnce(url) {
  if (!fetched.has(url)) {
    fetched.set(url, fetchBytes(url).catch((error) => {
      fetched.delete(url);
      throw error;
    }));
  }
  return fetched.get(url);
}

async function usePreset(name) {
  await placePreset(name);
  return warmed(page.use_preset(name));
}

// A vocabulary's one-off tables (seconds in Pyodide for a large one) are built as it loads,
// under the load's deadline: a compare's deadline, from its text's length, never counts them.
function warmed(info) {
  const vocab = JSON.parse(info);
  if (!("error" in vocab)) (timings.warm ??= {})[vocab.name] = JSON.parse(page.warm()).seconds;
  return info;
}

async function placePreset(name) {
  // The preset's file into Python's file system, fetched once.
  const target = JSON.parse(page.preset_target(name));
  if (!py.FS.analyzePath(target.path).exists) {
    let data = await fetchOnce(target.url);
    if (target.url.endsWith(".gz") && !(data[0] === 0x1f && data[1] === 0x8b)) {
      // A host that sent the file with Content-Encoding: gzip had the browser unpack it:
      // pack it again, since lbpe reads *.gz files as gzip.
      data = new Uint8Array(await new Response(new Blob([data]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer());
    }
    py.FS.mkdirTree(target.path.slice(0, target.path.lastIndexOf("/")));
    py.FS.writeFile(target.path, data);
    fetched.delete(target.url);
  }
}

async function across(text) {
  for (const preset of site.presets) {
    progress(`Loading ${preset.name} for the comparison across vocabularies…`);
    await placePreset(preset.name);
  }
  return page.across(text);
}

function useFiles(files, pattern) {
  // Each load gets a fresh folder; the file names are kept (the loaders detect formats by
  // name) but never their directories.
  const dir = `/tmp/vocab-upload-${++uploads}`;
  py.FS.mkdirTree(dir);
  const paths = files.map((f) => {
    const name = f.name.split(/[\\/]/).pop().replace(/^\.+/, "_") || "vocabulary";
    const path = `${dir}/${name}`;
    py.FS.writeFile(path, new Uint8Array(f.data));
    return path;
  });
  try {
    return warmed(page.use_file(paths.length === 1 ? paths[0] : dir, pattern || ""));
  } finally {
    // The parsed vocabulary lives in Python now; the uploaded bytes are not needed.
    for (const path of new Set(paths)) py.FS.unlink(path);
    py.FS.rmdir(dir);
  }
}

const handlers = {
  preset: ({ name }) => usePreset(name),
  files: ({ files, pattern }) => useFiles(files, pattern),
  compare: ({ text, showWhitespace, showIds, specials, left, right, dropout, seed }) => {
    const t = performance.now();
    // the pair: BPE and LBPE unless picked; dropout's rate and seed only with dropout (undefined is
    // Python's None, null would arrive as JsNull)
    const result = page.compare(
      text, showWhitespace, showIds, !!specials, left || "bpe", right || "lbpe", dropout ?? undefined,
      seed ?? undefined,
    );
    timings.first_compare ??= (performance.now() - t) / 1000;
    return result;
  },
  timings: () => JSON.stringify(timings),
  link_methods: ({ spec, rate, seed }) => page.link_methods(spec, rate || "", seed || ""),
  across: ({ text }) => across(text),
  // the Across view's methods axis: the current vocabulary, the ticked methods ("bpe,lbpe"); dropout's
  // rate and seed only with dropout (undefined is Python's None)
  across_methods: ({ text, methods, dropout, seed }) =>
    page.across_methods(text, methods || "all", dropout ?? undefined, seed ?? undefined),
  link_axis: ({ axis, spec, rate, seed }) => page.link_axis(axis || "", spec || "", rate || "", seed || ""),
  explain: ({ span, frame, text, at, specials, left, right, dropout, seed }) =>
    page.explain(span, frame, text || "", at ?? -1, !!specials, left || "bpe", right || "lbpe", dropout ?? null, seed ?? null),
  explain_at: ({ text, offset, specials, left, right, dropout, seed }) =>
    page.explain_at(text, offset, !!specials, left || "bpe", right || "lbpe", dropout ?? null, seed ?? null),
  decode: ({ ids }) => page.decode(ids),
  encode: ({ text, mode }) => page.encode(text, mode),
  bench: ({ text, mode, repeat }) => page.bench(text, mode, repeat),
};

const ready = start();
ready.then(
  (result) => self.postMessage({ type: "ready", result }),
  (error) => self.postMessage({ type: "failed", error: String(error && error.message ? error.message : error) }),
);

// One request at a time, in the order sent: a request never runs while another one waits on a
// fetch, and the page's deadline for it starts when it starts ("started").
let queue = Promise.resolve();

async function run({ id, cmd, args }) {
  try {
    await ready;
    const handler = handlers[cmd];
    if (!handler) throw new Error(`unknown command ${cmd}`);
    self.postMessage({ type: "started", id });
    const result = await handler(args || {});
    self.postMessage({ type: "result", id, result: String(result) });
  } catch (error) {
    self.postMessage({ type: "result", id, error: told(pythonMessage(error)) });
  }
}

self.onmessage = (event) => {
  queue = queue.then(() => run(event.data));
};

/** A message as a visitor is shown it (lbpe.playground.page.told): no variable to set. */
function told(message) {
  try {
    return page ? String(page.told(message)) : message;
  } catch {
    return message;
  }
}

function pythonMessage(error) {
  // A Python exception arrives as a PythonError whose message is the traceback: keep its last
  // line ("lbpe.errors.LbpeError: ..."), without the name of lbpe's class, which is what a
  // person needs (any of lbpe's errors: LbpeError's subclasses live in several modules).
  const text = String(error && error.message ? error.message : error).trim();
  const lines = text.split("\n").filter((l) => l.trim());
  const last = lines.length ? lines[lines.length - 1] : text;
  return last.replace(/^(?:lbpe\.[\w.]*\.[A-Z]\w*|LbpeError|VocabFormatError|DisallowedSpecialError): /, "");
}
