// Runs the built site's Python (Pyodide core + the lbpe wheel) under Node, the way
// static/worker.js does in the browser, and encodes texts with vocabularies.
//
//   node tests/support/pyodide_runner.mjs SITE_DIR < job.json > result.json
//
// job.json: {"texts": [str, ...], "modes": ["bpe", "lbpe"],
//            "vocabs": [{"preset": NAME} | {"file": HOST_PATH}, ...], "explain": [span, ...] (optional)}
// result.json: {"python": version, "vocabs": [{"name", "unit", "ids": {mode: [[id, ...] per text]},
//               "explain": [lbpe.playground.page.explain(span) per span]} | {"error": message}]}
import { readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const site = resolve(process.argv[2]);
// Pyodide takes plain typed arrays, not Node's Buffer subclass.
const readBytes = (path) => {
  const buffer = readFileSync(path);
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
};
const job = JSON.parse(readFileSync(0, "utf-8"));
const { loadPyodide } = await import(pathToFileURL(join(site, "pyodide", "pyodide.mjs")).href);
const siteInfo = JSON.parse(readFileSync(join(site, "site.json"), "utf-8"));

const py = await loadPyodide({ indexURL: join(site, "pyodide") + "/", stdout: () => {}, stderr: (s) => process.stderr.write(s + "\n") });
const sitePackages = py.runPython("import site; site.getsitepackages()[0]");
py.unpackArchive(readBytes(join(site, siteInfo.wheel)), "wheel", { extractDir: sitePackages });
const page = py.pyimport("lbpe.playground.page");

function usePreset(name) {
  // As worker.js: fetch the site's copy of the vocabulary and put it where lbpe.presets reads it.
  const target = JSON.parse(page.preset_target(name));
  if (!py.FS.analyzePath(target.path).exists) {
    py.FS.mkdirTree(target.path.slice(0, target.path.lastIndexOf("/")));
    py.FS.writeFile(target.path, readBytes(join(site, target.url)));
  }
  return JSON.parse(page.use_preset(name));
}

function useFile(hostPath) {
  // As worker.js for an uploaded file: its bytes under its own name in a fresh folder.
  const dir = `/tmp/upload-${Math.random().toString(36).slice(2)}`;
  py.FS.mkdirTree(dir);
  py.FS.writeFile(`${dir}/${basename(hostPath)}`, readBytes(hostPath));
  return JSON.parse(page.use_file(`${dir}/${basename(hostPath)}`, ""));
}

const out = {
  python: py.runPython("import sys; sys.version.split()[0]"),
  unicode: py.runPython("import unicodedata; unicodedata.unidata_version"),
  lbpe: py.runPython("import lbpe; lbpe.__file__"),
  vocabs: [],
};
for (const vocab of job.vocabs) {
  const info = vocab.preset !== undefined ? usePreset(vocab.preset) : useFile(vocab.file);
  if (info.error) {
    out.vocabs.push({ error: info.error });
    continue;
  }
  const ids = {};
  for (const mode of job.modes) ids[mode] = job.texts.map((text) => JSON.parse(page.encode(text, mode)));
  const explained = (job.explain || []).map((span) => JSON.parse(page.explain(span, -1)));
  out.vocabs.push({ name: info.name, unit: info.unit, ids, explain: explained });
}
process.stdout.write(JSON.stringify(out));
