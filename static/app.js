// The page's main thread: controls, the URL fragment, and inserting what Python returns.
// Python (lbpe.playground.page, in worker.js) does all tokenisation and produces the token HTML and the
// chart's Plotly figure; this file only wires controls, inserts that HTML and draws the figure.

const $ = (selector) => document.querySelector(selector);
const modes = ["bpe", "lbpe"];
const MAX_URL_TEXT = 2000; // characters of text kept in a shared link

/** A text's length in characters (code points), as Python and a link's limit count it. */
function characters(text) {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}
const MAX_RENDER_CHARS = 60000; // lbpe.playground.page.MAX_RENDER_CHARS: the part of a text the views measure
const FILE_VOCAB = "__file__";
// The opening text is the first of lbpe.playground.examples (the Gradio app opens on it too); it arrives
// with Python, so the text box stays empty (and disabled) until then.
let EXAMPLES = [];
let OPENING = null; // the example a new page opens on (its vocabulary is the default one)

const ui = {
  status: $("#status"),
  statusText: $("#status-text"),
  preset: $("#preset"),
  vocabFile: $("#vocab-file"),
  pattern: $("#pattern"),
  textFile: $("#text-file"),
  example: $("#example"),
  showWs: $("#show-ws"),
  showIds: $("#show-ids"),
  share: $("#share"),
  text: $("#text"),
  error: $("#error"),
  vocabInfo: $("#vocab-info"),
  textInfo: $("#text-info"),
  chart: $("#chart"),
  frequencyChart: $("#frequency-chart"),
  acrossRun: $("#across-run"),
  acrossInfo: $("#across-info"),
  acrossTable: $("#across-table"),
  acrossChart: $("#across-chart"),
  acrossAxis: [...document.querySelectorAll('#across-axis input[name="across-axis"]')],
  acrossHeading: document.getElementById("across-heading"),
  acrossOptions: $("#across-methods-options"),
  acrossMethods: $("#across-methods"),
  acrossDropout: $("#across-dropout-options"),
  acrossRate: $("#across-dropout-rate"),
  acrossSeed: $("#across-dropout-seed"),
  acrossDownloads: $("#across-downloads"),
  acrossJson: $("#across-json"),
  acrossCsv: $("#across-csv"),
  versions: $("#versions"),
  left: $("#left-method"),
  right: $("#right-method"),
  dropoutOptions: $("#dropout-options"),
  rate: $("#dropout-rate"),
  seed: $("#dropout-seed"),
  pairNote: $("#explain-pair-note"),
};

// ---- talking to the worker ----
// Each request has a deadline. Python cannot be interrupted inside a regular expression, and a
// vocabulary file's own pattern can backtrack for hours on some texts (a long run of spaces),
// so a request past its deadline ends the worker: a new one starts with the same vocabulary
// and the page says why. With a bundled vocabulary only a busy or slow device gets there.

const workerURL = new URL("worker.js", import.meta.url);
let worker = null;
const pending = new Map(); // id -> {resolve, reject, timer}
let nextId = 0;
let gate = Promise.resolve(); // requests wait for a restarted worker's vocabulary
let restarts = 0;
let deadlineScale = 1; // every deadline's factor (window.lbpePage.deadlineScale: a test's slow device)
let resolveReady, rejectReady;
const ready = new Promise((resolve, reject) => {
  resolveReady = resolve;
  rejectReady = reject;
});

function startWorker(onReady, onFailed) {
  const w = new Worker(workerURL, { type: "module" });
  w.onmessage = (event) => {
    const m = event.data;
    if (m.type === "progress") {
      setStatus("loading", m.text);
    } else if (m.type === "ready") {
      onReady(m.result);
    } else if (m.type === "failed") {
      onFailed(new Error(m.error));
    } else if (m.type === "started") {
      // a request's deadline counts from when Python starts on it, not while it waits its turn
      const p = pending.get(m.id);
      if (p && p.seconds) p.timer = setTimeout(() => expire(m.id, p.seconds), p.seconds * 1000);
    } else if (m.type === "result") {
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      clearTimeout(p.timer);
      if (m.error !== undefined) p.reject(new Error(m.error));
      else p.resolve(m.result);
    }
  };
  w.onerror = (event) => onFailed(new Error(event.message || "the Python worker could not start"));
  return w;
}

/** Seconds a request may take before the worker is restarted (0: no deadline). */
function deadline(cmd, args) {
  return deadlineScale * unscaledDeadline(cmd, args);
}

function unscaledDeadline(cmd, args) {
  if (cmd === "compare" || cmd === "encode") return 5 + (args.text || "").length / 20000;
  if (cmd === "files") return 30 + (5 * args.files.reduce((n, f) => n + f.data.byteLength, 0)) / 1e6;
  if (cmd === "preset") return 120;
  if (cmd === "across") return 240 + (args.text || "").length / 5000; // loads every preset first
  // the methods axis measures the text's shown part with up to every method: a few compares' worth
  if (cmd === "across_methods") return 15 + Math.min((args.text || "").length, MAX_RENDER_CHARS) / 5000;
  return 0; // bench: the benchmark measures, it may take long
}

function post(cmd, args, transfer) {
  return new Promise((resolve, reject) => {
    const id = ++nextId;
    pending.set(id, { resolve, reject, cmd, seconds: deadline(cmd, args), timer: null });
    worker.postMessage({ id, cmd, args }, transfer);
  });
}

async function call(cmd, args = {}, transfer = []) {
  await gate;
  return post(cmd, args, transfer);
}

function expire(id, seconds) {
  const p = pending.get(id);
  if (!p) return;
  const stopped =
    `it took more than ${seconds.toFixed(1)} s and was stopped. Python was restarted with the same vocabulary. `;
  // a bundled vocabulary's pattern never backtracks for long: only a file's own one can be to blame
  const fromFile = p.cmd === "files" || state.preset === FILE_VOCAB;
  const why = fromFile
    ? "A vocabulary file's own regular expression can take very long on some texts (long runs of spaces or " +
      "repeated characters): try a shorter text or another vocabulary."
    : "This device may be busy, or slow for a text this long: try again, or a shorter text.";
  restartWorker(stopped + why);
}

function restartWorker(why) {
  worker.terminate();
  restarts += 1;
  api.restarts = restarts;
  for (const [, p] of pending) {
    clearTimeout(p.timer);
    p.reject(new Error(why));
  }
  pending.clear();
  setStatus("loading", "Restarting Python…");
  const restarted = new Promise((resolve, reject) => {
    worker = startWorker(resolve, reject);
  });
  // Requests wait until the new worker has the vocabulary the page was showing.
  gate = restarted
    .then(async (boot) => {
      if (state.preset === FILE_VOCAB && fileVocab) {
        const copies = fileVocab.files.map((f) => ({ name: f.name, data: f.data.slice(0) }));
        await post("files", { files: copies, pattern: ui.pattern.value }, copies.map((f) => f.data));
      } else if (state.preset && state.preset !== boot.site.default_preset) {
        await post("preset", { name: state.preset }, []);
      }
      setStatus("ready", "Ready");
    })
    .catch((error) => {
      setStatus("error", "Python could not restart");
      showError(`Python could not restart: ${error.message}. Reload the page.`);
    });
}

worker = startWorker(
  (result) => resolveReady(result),
  (error) => rejectReady(error),
);

// ---- state <-> URL fragment ----

// explainAt: where the explained span starts in the text (a click, an example, a link), "" when typed;
// methods: the two compared, left and right; rate and seed: BPE-dropout's, as typed ("" seed: fresh draws);
// axis: what the Across view compares ("vocabularies" or "methods"), axisMethods the methods ticked there
// (null: every one), axisRate and axisSeed BPE-dropout's there
const state = {
  preset: "", ws: true, ids: false, special: false, text: "", explain: "", explainAt: "",
  methods: ["bpe", "lbpe"], rate: "0.1", seed: "0",
  axis: "vocabularies", axisMethods: null, axisRate: "0.1", axisSeed: "0",
};
/** The settings a link may leave out, as a new page has them (links made here say ws and ids). */
const LINK_DEFAULTS = { ws: state.ws, ids: state.ids, special: state.special };
const DEFAULT_PAIR = ["bpe", "lbpe"];
let METHOD_ORDER = []; // lbpe.METHODS, from Python (lbpe.playground.page.methods)
let METHOD_NAMES = { bpe: "BPE", lbpe: "LBPE" }; // every method's name, from Python (lbpe.playground.page.methods)
let fileVocab = null; // {files: [{name, data}], label} of the loaded vocabulary file
let lastFiles = null; // the files of the last attempt, kept to retry with another pre-tokenizer
let patternAsked = false; // the last attempt asked for a pre-tokenizer

/** The first ``most`` characters of ``text`` (code points: an emoji is never cut in two), with
 * "…" when there were more. */
function clip(text, most) {
  const chars = Array.from(text);
  return chars.length > most ? `${chars.slice(0, most).join("")}…` : text;
}

/** The Explain box of a link that leaves it out, as a new page has it: the opening example's
 * span, where it stands when ``text`` is the opening text. */
function openingExplain(text) {
  if (!OPENING) return { explain: "", explainAt: "" };
  const at = text === OPENING.text ? String(OPENING.text.indexOf(OPENING.explain)) : "";
  return { explain: OPENING.explain, explainAt: at };
}

function readFragment() {
  const params = new URLSearchParams(location.hash.slice(1));
  const out = {};
  if (params.has("v")) out.preset = params.get("v");
  if (params.has("ws")) out.ws = params.get("ws") !== "0";
  if (params.has("ids")) out.ids = params.get("ids") === "1";
  if (params.has("sp")) out.special = params.get("sp") === "1";
  if (params.has("t")) out.text = params.get("t");
  if (params.has("x")) {
    out.explain = params.get("x");
    out.explainAt = /^\d{1,9}$/.test(params.get("xa") || "") ? params.get("xa") : "";
  }
  if (params.has("vf")) out.linkedFile = params.get("vf");
  // the pair as the link spells it (m=left,right, dr= and seed= for dropout): Python checks it (checkedPair)
  if (params.has("m")) out.linkedPair = { spec: params.get("m"), rate: params.get("dr") || "", seed: params.get("seed") || "" };
  if (params.has("tl")) {
    // a text too long for a link: this tab's own, kept for a reload (another tab has none)
    const chars = Number(params.get("tl")) || 0;
    const kept = longText();
    if (kept !== null && characters(kept) === chars) out.text = kept;
    else out.linkedTextChars = chars > 0 ? chars : -1; // -1: a length no link of this page writes
  }
  // the Across view's axis as the link spells it (ax=methods, ms=, mdr=, mseed=): Python checks it (checkedAxis)
  if (params.has("ax")) {
    out.linkedAxis = {
      axis: params.get("ax"), spec: params.get("ms") || "", rate: params.get("mdr") || "", seed: params.get("mseed") || "",
    };
  }
  return out;
}

function fragment() {
  const params = new URLSearchParams();
  if (state.preset && state.preset !== FILE_VOCAB) params.set("v", state.preset);
  params.set("ws", state.ws ? "1" : "0");
  params.set("ids", state.ids ? "1" : "0");
  if (state.special) params.set("sp", "1");
  const chars = characters(state.text);
  if (chars <= MAX_URL_TEXT) params.set("t", state.text);
  else params.set("tl", String(chars)); // says what the link leaves out
  if (state.preset === FILE_VOCAB && fileVocab) params.set("vf", clip(fileVocab.label, 120)); // the name only
  // the methods only when they are not the classic pair, as the app's links (lbpe.playground.service.links)
  if (!isDefaultPair()) params.set("m", state.methods.join(","));
  if (hasDropout()) {
    params.set("dr", state.rate);
    if (state.seed !== "") params.set("seed", state.seed);
  }
  // the Across view's methods axis, as the app's links: its methods unless every one is ticked, and
  // dropout's rate and seed while it is ticked
  if (state.axis === "methods") {
    params.set("ax", "methods");
    if (state.axisMethods !== null) params.set("ms", state.axisMethods.join(","));
    if (hasAxisDropout()) {
      params.set("mdr", state.axisRate);
      if (state.axisSeed !== "") params.set("mseed", state.axisSeed);
    }
  }
  params.set("x", state.explain); // an empty box too (a link without x opens on the default span)
  const at = state.explainAt === "" ? -1 : Number(state.explainAt);
  if (state.explain && at >= 0 && state.text.slice(at, at + state.explain.length) === state.explain) {
    params.set("xa", state.explainAt);
  }
  return "#" + params.toString().replace(/\+/g, "%20");
}

function isDefaultPair() {
  return state.methods[0] === DEFAULT_PAIR[0] && state.methods[1] === DEFAULT_PAIR[1];
}

function hasDropout() {
  return state.methods.includes("dropout");
}

/** The link's pair as state: its raw spelling until Python has checked it (checkedPair). */
function linkedPairState(pair) {
  if (!pair) return { methods: DEFAULT_PAIR.slice(), rate: "0.1", seed: "0" };
  return { methods: pair.spec.split(",").slice(0, 2), rate: pair.rate || "0.1", seed: pair.seed };
}

/** A link's pair checked by Python as the app checks its links: the state it gives and what was wrong ("": nothing). */
async function checkedPair(pair) {
  if (!pair) return { pair: linkedPairState(null), error: "" };
  const checked = JSON.parse(await call("link_methods", pair));
  const rate = checked.dropout === null ? "0.1" : String(checked.dropout);
  const seed = checked.methods.includes("dropout") ? (checked.seed === null ? "" : String(checked.seed)) : "0";
  return { pair: { methods: checked.methods, rate, seed }, error: checked.error };
}

/** What is wrong with the pair as picked, said as what to do ("": nothing). */
function pairProblem() {
  const [left, right] = state.methods;
  if (left === right) return `Pick two different methods to compare: both sides are ${METHOD_NAMES[left] || left}.`;
  if (!hasDropout()) return "";
  return dropoutProblem(state.rate, state.seed);
}

/** What is wrong with BPE-dropout's rate and seed as typed ("": nothing). */
function dropoutProblem(rateText, seed) {
  const rate = Number(rateText);
  if (rateText.trim() === "" || !Number.isFinite(rate) || rate < 0 || rate > 1) {
    const given = rateText.trim() === "" ? "the box is empty" : `not “${clip(rateText, 20)}”`;
    return `The dropout rate must be a number from 0 to 1 (e.g. 0.1): ${given}.`;
  }
  if (seed !== "" && !/^\d{1,12}$/.test(seed)) {
    // as lbpe.playground.display.SEED_RULE
    return "The seed must be a whole number from 0 to 999,999,999,999, or empty for fresh draws on every change: " +
      `not “${clip(seed, 20)}”.`;
  }
  return "";
}

// ---- the Across view's axis: vocabularies, or the methods of the vocabulary chosen above ----

/** The methods ticked on the methods axis, in lbpe.METHODS' order. */
function axisMethods() {
  return state.axisMethods === null ? METHOD_ORDER.slice() : state.axisMethods;
}

function hasAxisDropout() {
  return state.axis === "methods" && (state.axisMethods === null || state.axisMethods.includes("dropout"));
}

/** The link's axis as state: its raw spelling until Python has checked it (checkedAxis). */
function linkedAxisState(linked) {
  if (!linked) return { axis: "vocabularies", axisMethods: null, axisRate: "0.1", axisSeed: "0" };
  return {
    axis: linked.axis === "methods" ? "methods" : "vocabularies",
    axisMethods: linked.spec ? linked.spec.split(",") : null,
    axisRate: linked.rate || "0.1",
    axisSeed: linked.rate ? linked.seed : "0",
  };
}

/** A link's axis checked by Python as the app checks its links: the state it gives and what was wrong ("": nothing). */
async function checkedAxis(linked) {
  if (!linked) return { axis: linkedAxisState(null), error: "" };
  const checked = JSON.parse(await call("link_axis", linked));
  const every = METHOD_ORDER.every((m) => checked.methods.includes(m)) && checked.methods.length === METHOD_ORDER.length;
  // a link that gives no rate keeps the boxes' defaults, as the app does
  const given = checked.dropout !== null;
  return {
    axis: {
      axis: checked.axis,
      axisMethods: every ? null : checked.methods,
      axisRate: given ? String(checked.dropout) : "0.1",
      axisSeed: given ? (checked.seed === null ? "" : String(checked.seed)) : "0",
    },
    error: checked.error,
  };
}

/** What is wrong with the methods axis as ticked, said as what to do ("": nothing). */
function axisProblem() {
  if (!axisMethods().length) return "Tick at least one method to compare (BPE, LBPE, …).";
  return hasAxisDropout() ? dropoutProblem(state.axisRate, state.axisSeed) : "";
}

/** The axis' radio buttons, methods and dropout's boxes show the state (a link's, or the default). */
function applyAxis() {
  for (const radio of ui.acrossAxis) radio.checked = radio.value === state.axis;
  const ticked = axisMethods();
  for (const box of ui.acrossMethods.querySelectorAll("input")) box.checked = ticked.includes(box.value);
  ui.acrossRate.value = state.axisRate;
  ui.acrossSeed.value = state.axisSeed;
  markAxis();
}

/** The methods and dropout's boxes show only on the methods axis (dropout's while it is ticked), the
 * heading and the button say what is compared, and a box whose value is wrong is marked. */
function markAxis() {
  const on = state.axis === "methods";
  ui.acrossOptions.hidden = !on;
  ui.acrossDropout.hidden = !hasAxisDropout();
  ui.acrossHeading.textContent = on ? "Across methods" : "Across vocabularies";
  ui.acrossRun.textContent = on ? "Compare across methods" : "Compare across vocabularies";
  const problem = on ? axisProblem() : "";
  ui.acrossRate.classList.toggle("attention", problem.startsWith("The dropout rate"));
  ui.acrossSeed.classList.toggle("attention", problem.startsWith("The seed"));
}

/** The methods axis' checkboxes, one per method of lbpe.METHODS (from Python). */
function buildAxisMethods(methods) {
  ui.acrossMethods.replaceChildren();
  for (const [value, name] of methods) {
    const label = document.createElement("label");
    label.className = "check";
    const box = document.createElement("input");
    box.type = "checkbox";
    box.value = value;
    box.checked = true;
    box.addEventListener("change", () => {
      const ticked = [...ui.acrossMethods.querySelectorAll("input:checked")].map((b) => b.value);
      state.axisMethods = ticked.length === METHOD_ORDER.length ? null : ticked;
      markAxis();
      writeFragment();
    });
    label.append(box, ` ${name}`);
    ui.acrossMethods.append(label);
  }
}

/** The pickers and dropout's boxes show the pair in state (a link's, or the default). */
function applyPair() {
  ui.left.value = state.methods[0];
  ui.right.value = state.methods[1];
  ui.rate.value = state.rate;
  ui.seed.value = state.seed;
  markPair();
}

/** Dropout's boxes show only while it is one of the pair, and a box whose value is wrong is marked
 * (what is wrong is said in #error); what the person is typing is left as it is. */
function markPair() {
  ui.dropoutOptions.hidden = !hasDropout();
  const problem = pairProblem();
  ui.rate.classList.toggle("attention", hasDropout() && problem.startsWith("The dropout rate"));
  ui.seed.classList.toggle("attention", hasDropout() && problem.startsWith("The seed"));
}

function pickedNames() {
  const name = (m) => (m === "dropout" ? `${METHOD_NAMES[m]} ${Number(state.rate)}` : METHOD_NAMES[m] || m);
  return { bpe: name(state.methods[0]), lbpe: name(state.methods[1]) };
}

/** Every heading and hint that names the methods names these (role -> name). Explain shows the
 * pair's own steps, so the note that once said it stepped through BPE and LBPE only stays hidden. */
function showNames(names, methods) {
  for (const mode of modes) {
    for (const el of document.querySelectorAll(`[data-name="${mode}"]`)) el.textContent = names[mode];
  }
  ui.pairNote.hidden = true;
  ui.pairNote.textContent = "";
}

function writeFragment() {
  const hash = fragment();
  if (hash !== location.hash) history.replaceState(null, "", hash);
  keepLongText();
}

// A text longer than a link carries is kept in this tab's session storage, so that a reload
// shows it again; a link opened elsewhere says it was left out.
const LONG_TEXT_KEY = "lbpe-long-text";

function keepLongText() {
  try {
    if (characters(state.text) > MAX_URL_TEXT) sessionStorage.setItem(LONG_TEXT_KEY, state.text);
    else sessionStorage.removeItem(LONG_TEXT_KEY);
  } catch {
    // storage full or disabled: a reload says the text was left out, as a link does (never an
    // older text kept in its place)
    try {
      sessionStorage.removeItem(LONG_TEXT_KEY);
    } catch {
      // storage disabled: nothing is kept
    }
  }
}

function longText() {
  try {
    return sessionStorage.getItem(LONG_TEXT_KEY);
  } catch {
    return null;
  }
}

// ---- status, errors ----

function setStatus(kind, text) {
  ui.status.dataset.state = kind;
  ui.statusText.textContent = text;
}

function showError(message) {
  ui.error.textContent = message;
  ui.error.hidden = !message;
}

/** A link's pair and Across axis, checked by Python, into state and the controls; their
 * problems as Python says them ("" when none). A link Python cannot read is said too, never a
 * page left waiting on it. */
async function linkOptions(linked) {
  let pairError = "";
  let axisError = "";
  try {
    const checked = await checkedPair(linked.linkedPair);
    Object.assign(state, checked.pair);
    pairError = checked.error || "";
  } catch (error) {
    Object.assign(state, linkedPairState(null));
    pairError = `Its methods could not be read (${error.message}).`;
  }
  applyPair();
  try {
    const checked = await checkedAxis(linked.linkedAxis);
    Object.assign(state, checked.axis);
    axisError = checked.error || "";
  } catch (error) {
    Object.assign(state, linkedAxisState(null));
    axisError = `Its Across axis could not be read (${error.message}).`;
  }
  applyAxis();
  return { pairError, axisError };
}

/** What a link asked for that the page cannot show, as one message ("" when nothing): an
 * unknown vocabulary, a vocabulary file (never carried), the pair's and the axis' problems
 * (Python's sentences), a text too long to carry. */
function linkNotes(linked, { pairError = "", axisError = "", unknown = "" } = {}) {
  const notes = [];
  const shown = state.preset === FILE_VOCAB && fileVocab ? fileVocab.label : state.preset;
  if (unknown) notes.push(`its vocabulary “${clip(unknown, 60)}” is not one of this page's: ${shown} is shown`);
  if (linked.linkedFile) {
    notes.push(`it was made with the vocabulary file “${linked.linkedFile}”, which a link never carries: load ` +
      "that file (Load vocabulary file…) to see the same tokens");
  }
  if (pairError) notes.push(pairError.replace(/^Its/, "its").replace(/\.$/, ""));
  if (axisError) notes.push(axisError.replace(/^(Its|It)\b/, (w) => w.toLowerCase()).replace(/\.$/, ""));
  if (linked.linkedTextChars > 0) {
    notes.push(`its text had ${number.format(linked.linkedTextChars)} characters, more than a link carries ` +
      `(${number.format(MAX_URL_TEXT)}): paste the text again`);
  } else if (linked.linkedTextChars) {
    notes.push("its text was longer than a link carries: paste the text again");
  }
  return notes.length ? `About this link: ${notes.join("; ")}.` : "";
}

// ---- rendering what Python returned ----

// methods, dropout, seed: the pair the panes show (dropout and seed: numbers, or null)
const rendered = { text: null, preset: null, methods: null, dropout: null, seed: null, seq: 0, at: null };
const number = new Intl.NumberFormat("en-US");

// ---- a reload shows the last result at once, while Python starts ----

const CACHE_KEY = "lbpe-last-render";
let tokenCss = ""; // lbpe.playground.display.CSS, from Python

function cacheKey() {
  // the pair too: the panes of one pair are never shown under another; dropout's draws without a
  // seed are fresh each time, so they are never kept
  if (hasDropout() && state.seed === "") return null;
  const pair = [...state.methods, ...(hasDropout() ? [state.rate, state.seed] : [])];
  return JSON.stringify([state.text, state.preset, state.ws, state.ids, state.special, pair]);
}

function saveRender(result) {
  // The panes, metrics and ids of the last comparison, for the next visit with the same text and
  // settings. Only small results are kept (localStorage holds a few MB per site).
  try {
    const key = cacheKey();
    if (key === null) return;
    const entry = JSON.stringify({
      key, css: tokenCss, panes: result.panes, metrics: result.metrics,
      differences: result.differences, ids: { bpe: result.summary.bpe.ids, lbpe: result.summary.lbpe.ids },
      info: ui.textInfo.textContent, names: result.names, methods: result.methods,
    });
    if (entry.length < 1_500_000) localStorage.setItem(CACHE_KEY, entry);
    else localStorage.removeItem(CACHE_KEY);
  } catch {
    // storage full or disabled: the page works the same, without the early view
  }
}

function earlyRender() {
  // Shown before Python is ready when this text and these settings were the last compared;
  // Python's own result replaces it as soon as it comes.
  try {
    const entry = JSON.parse(localStorage.getItem(CACHE_KEY) || "null");
    const key = cacheKey();
    if (!entry || key === null || entry.key !== key) return false;
    $("#token-css").textContent = entry.css;
    if (entry.names && entry.methods) showNames(entry.names, entry.methods);
    for (const mode of modes) {
      $(`.pane[data-mode="${mode}"]`).innerHTML = entry.panes[mode];
      $(`.ids[data-mode="${mode}"]`).textContent = entry.ids[mode].join(" ");
    }
    $("#metrics").innerHTML = entry.metrics;
    $("#differences").innerHTML = entry.differences;
    ui.textInfo.textContent = `${entry.info} · your last result, shown while Python starts`;
    api.earlySeconds = performance.now() / 1000;
    return true;
  } catch {
    return false;
  }
}

// ---- a first visit shows the opening comparison at once, while Python starts ----

// lbpe build-web computed it with the same Python (lbpe.playground.page.first_view) and put it in index.html.
function firstRender() {
  // Shown before Python is ready when the page opens on the default text and settings (a link
  // to another text, vocabulary or toggle waits for Python); Python's own result is the same.
  let first;
  try {
    first = JSON.parse($("#first-view").textContent);
  } catch {
    return false; // a page not built by lbpe build-web
  }
  const linked = readFragment();
  if (("text" in linked && linked.text !== first.text) || (linked.preset && linked.preset !== first.preset)) return false;
  if (!isDefaultPair()) return false; // the built view is BPE and LBPE's
  if (!state.ws || state.ids || state.special) return false;
  state.text = first.text;
  applyState();
  $("#token-css").textContent = first.css;
  showResult(first.result);
  api.firstSeconds = performance.now() / 1000;
  return true;
}

function render(result) {
  showResult(result);
  drawCharts(result);
}

function drawCharts(result) {
  drawChart(ui.chart, result.figure)
    .then(() => drawChart(ui.frequencyChart, result.frequency_figure))
    .catch((error) => showError(`The chart could not be drawn: ${error.message}`));
}

function showResult(result) {
  // the panes, ids, metrics, differences and the line about the text
  const summary = result.summary;
  for (const mode of modes) {
    window.lbpePanes.draw($(`.pane[data-mode="${mode}"]`), result.panes[mode]); // only the runs that changed
    $(`.ids[data-mode="${mode}"]`).textContent = summary[mode].ids.join(" ");
    // a long text's ids are its drawn part's: said beside them, with the whole text's count
    const whole = result.whole ? result.whole[mode] : null; // the pane slots' counts
    $(`.ids-part[data-mode="${mode}"]`).textContent = whole === null ? "" :
      ` (the first ${number.format(summary[mode].ids.length)} of the whole text's ${number.format(whole)}, ` +
      `for its first ${number.format(result.shown_chars)} characters)`;
  }
  $("#metrics").innerHTML = result.metrics;
  $("#differences").innerHTML = result.differences;
  // the built first view (lbpe build-web) is BPE and LBPE's
  showNames(result.names || { bpe: "BPE", lbpe: "LBPE" }, result.methods || DEFAULT_PAIR);
  let info = `${counted(result.chars, "character")}, ${counted(result.bytes, "byte")}`;
  if (result.whole) {
    const { bpe, lbpe } = result.whole;
    const names = result.names || { bpe: "BPE", lbpe: "LBPE" };
    const pct = bpe ? (100 * (lbpe - bpe)) / bpe : 0;
    info += ` · only the first ${number.format(result.shown_chars)} characters are drawn, measured and charted;` +
      ` the whole text is ${number.format(bpe)} ${names.bpe} and ${number.format(lbpe)} ${names.lbpe} tokens` +
      ` (${pct > 0 ? "+" : ""}${pct.toFixed(1)}%)`;
  }
  ui.textInfo.textContent = info;
}

/** What the panes show while the pair picked cannot be compared: the last comparison made. */
function lastComparison() {
  const [left, right] = (rendered.methods || DEFAULT_PAIR).map((m) => METHOD_NAMES[m] || m);
  const vocab = rendered.preset === FILE_VOCAB && fileVocab ? fileVocab.label : rendered.preset;
  return `the panes, dimmed, show the last comparison that could be made: ${left} and ${right} with ` +
    `${vocab} on “${clip(rendered.text, 40)}”`;
}

/** "1 character", "2,000 characters". */
function counted(n, what) {
  return `${number.format(n)} ${what}${n === 1 ? "" : "s"}`;
}

let plotlyLoading = null;
function plotly() {
  // plotly.js is big and only needed for the chart: load it after Python is ready.
  if (!plotlyLoading) {
    plotlyLoading = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = new URL("plotly/plotly.min.js", import.meta.url).href;
      script.onload = () => resolve(window.Plotly);
      script.onerror = () => reject(new Error("plotly.js could not be loaded"));
      document.head.append(script);
    });
  }
  return plotlyLoading;
}

async function drawChart(element, figure) {
  const Plotly = await plotly();
  if (!figure) {
    Plotly.purge(element); // nothing to chart (an empty text)
    return;
  }
  const config = { displaylogo: false, responsive: true, modeBarButtonsToRemove: ["select2d", "lasso2d"] };
  await Plotly.react(element, figure.data, figure.layout, config);
}

// ---- actions ----

let busy = false;
let dirty = false;
let compareFailed = false;
let timer = null;

function schedule(delay = 150) {
  clearTimeout(timer);
  timer = setTimeout(runCompare, delay);
}

async function runCompare() {
  if (busy) {
    dirty = true;
    return;
  }
  const problem = pairProblem();
  if (problem) {
    // said where the person looks; the panes keep the last pair that could be compared, dimmed,
    // and the line under the text says what they show
    compareFailed = true;
    showError(problem);
    markPair();
    setStatus("ready", "Ready"); // a vocabulary chosen meanwhile has loaded
    if (rendered.text !== null) {
      document.body.classList.add("updating");
      ui.textInfo.textContent = `${counted(characters(state.text), "character")}, ` +
        `${counted(new TextEncoder().encode(state.text).length, "byte")} · ${lastComparison()}`;
    }
    return;
  }
  busy = true;
  dirty = false;
  const text = state.text;
  const preset = state.preset;
  const methods = state.methods.slice();
  const dropout = hasDropout() ? Number(state.rate) : null;
  const seed = hasDropout() && state.seed !== "" ? Number(state.seed) : null;
  const slow = setTimeout(() => setStatus("busy", "Tokenising…"), 120);
  try {
    const result = JSON.parse(await call("compare", {
      text, showWhitespace: state.ws, showIds: state.ids, specials: state.special,
      left: methods[0], right: methods[1], dropout, seed,
    }));
    if (compareFailed) showError(""); // the last compare's error no longer applies
    compareFailed = false;
    markPair();
    render(result);
    if (text === state.text) document.body.classList.remove("updating");
    saveRender(result);
    // a span of the text is explained as the text is encoded, by the pair compared: again when the
    // text, toggle or pair changed
    if (explainView.basis !== explainBasis()) runExplain();
    rendered.text = text;
    rendered.preset = preset;
    rendered.methods = methods;
    rendered.dropout = dropout;
    rendered.seed = seed;
    rendered.seq += 1;
    rendered.at = performance.now() / 1000; // seconds since navigation (bench/web_speed.py)
    setStatus("ready", "Ready");
  } catch (error) {
    compareFailed = true;
    showError(`Could not tokenise this text: ${error.message}`);
    setStatus("ready", "Ready");
  } finally {
    clearTimeout(slow);
    busy = false;
    if (dirty) schedule(0);
  }
}

// ---- explain: one word, both encodings step by step ----

// basis: the text and toggle a span of the text was last explained in, and the pair
const explainView = { frame: 0, frames: 1, seq: 0, playing: null, basis: null };

/** The pair Explain steps through: the one picked when it can be compared, else the one the
 * panes show (BPE and LBPE before any); as the worker's explain and explain_at take it. */
function explainPair() {
  if (!pairProblem()) {
    return {
      left: state.methods[0], right: state.methods[1],
      dropout: hasDropout() ? Number(state.rate) : null,
      seed: hasDropout() && state.seed !== "" ? Number(state.seed) : null,
    };
  }
  if (rendered.methods) return { left: rendered.methods[0], right: rendered.methods[1], dropout: rendered.dropout, seed: rendered.seed };
  return { left: DEFAULT_PAIR[0], right: DEFAULT_PAIR[1], dropout: null, seed: null };
}

/** What an explanation depends on besides the span: the text and toggle (for a span of the text) and the pair. */
function explainBasis() {
  const inText = state.explainAt !== "";
  return JSON.stringify([inText ? state.text : null, inText ? state.special : null, explainPair()]);
}

async function runExplain(frame = -1) {
  const span = state.explain;
  const seq = ++explainView.seq;
  if (!span) {
    $("#explain").textContent = "";
    return;
  }
  try {
    const at = state.explainAt === "" ? -1 : Number(state.explainAt);
    explainView.basis = explainBasis();
    const result = JSON.parse(await call("explain", {
      span, frame, text: at < 0 ? "" : state.text, at, specials: state.special, ...explainPair(),
    }));
    if (seq !== explainView.seq) return; // a newer request is on its way
    $("#explain").innerHTML = result.html;
    explainView.frame = result.frame;
    explainView.frames = result.frames;
    const slider = $("#explain-step");
    slider.max = String(Math.max(result.frames - 1, 1));
    slider.value = String(result.frame);
    slider.disabled = result.frames < 2;
  } catch (error) {
    if (seq !== explainView.seq) return;
    stopPlaying();
    $("#explain").innerHTML = "";
    const p = document.createElement("p");
    p.className = "error";
    p.textContent = `Could not explain “${clip(span, 60)}”: ${error.message}`;
    $("#explain").append(p);
  }
}

function stopPlaying() {
  clearInterval(explainView.playing);
  explainView.playing = null;
  $("#explain-play").textContent = "Play";
}

function togglePlay() {
  if (explainView.playing) return stopPlaying();
  if (explainView.frame >= explainView.frames - 1) explainView.frame = -1;
  $("#explain-play").textContent = "Pause";
  const tick = async () => {
    if (explainView.frame >= explainView.frames - 1) return stopPlaying();
    await runExplain(explainView.frame + 1);
  };
  tick();
  explainView.playing = setInterval(tick, 900);
}

function setExplain(span, { write = true, at = "" } = {}) {
  stopPlaying();
  state.explain = span;
  state.explainAt = at;
  $("#explain-text").value = span;
  if (write) writeFragment();
  runExplain();
}

async function explainClick(event) {
  const token = event.target.closest(".pane .lbpe-tok[data-s]");
  if (!token || rendered.text === null) return;
  try {
    const picked = JSON.parse(
      await call("explain_at", {
        text: rendered.text, offset: Number(token.dataset.s), specials: state.special, ...explainPair(),
      }),
    );
    setExplain(picked.span, { at: String(picked.start) });
    $("#explain-box").scrollIntoView({ behavior: "smooth", block: "start" });
  } catch (error) {
    showError(`Could not explain this token: ${error.message}`);
  }
}

// ---- across vocabularies ----

async function runAcross() {
  if (state.axis === "methods") return runMethods();
  ui.acrossRun.disabled = true;
  showError("");
  setStatus("busy", "Encoding with every vocabulary…");
  const text = state.text;
  try {
    const result = JSON.parse(await call("across", { text }));
    renderAcross(result, text);
    across.seq += 1;
    across.axis = "vocabularies";
    across.methods = null;
  } catch (error) {
    showError(`Could not compare across vocabularies: ${error.message}`);
  } finally {
    ui.acrossRun.disabled = false;
    setStatus("ready", "Ready");
  }
}

// what the Across view shows: seq counts its results (for tests), axis and methods say what they compare
const across = { seq: 0, axis: null, methods: null, urls: [] };

async function runMethods() {
  const problem = axisProblem();
  if (problem) {
    // said where the person looks; the table keeps the last result
    showError(problem);
    markAxis();
    return;
  }
  ui.acrossRun.disabled = true;
  showError("");
  setStatus("busy", "Encoding with every method ticked…");
  const text = state.text;
  const methods = axisMethods();
  const dropout = methods.includes("dropout") ? Number(state.axisRate) : null;
  const seed = methods.includes("dropout") && state.axisSeed !== "" ? Number(state.axisSeed) : null;
  try {
    const result = JSON.parse(await call("across_methods", { text, methods: methods.join(","), dropout, seed }));
    renderAcross(result, text);
    offerDownloads(result);
    across.seq += 1;
    across.axis = "methods";
    across.methods = result.methods;
  } catch (error) {
    showError(`Could not compare across methods: ${error.message}`);
  } finally {
    ui.acrossRun.disabled = false;
    setStatus("ready", "Ready");
  }
}

/** The methods table's JSON (lbpe stats --methods --json's) and CSV as downloads made in the page. */
function offerDownloads(result) {
  for (const url of across.urls) URL.revokeObjectURL(url);
  across.urls = [];
  for (const [link, body, type, ext] of [
    [ui.acrossJson, result.json, "application/json", "json"], [ui.acrossCsv, result.csv, "text/csv", "csv"],
  ]) {
    const url = URL.createObjectURL(new Blob([body], { type: `${type};charset=utf-8` }));
    across.urls.push(url);
    link.href = url;
    link.download = `${result.stem}-methods.${ext}`;
  }
  ui.acrossDownloads.hidden = false;
}

/** The Across view's results are cleared when its axis changes: a table of one axis is never shown under the other. */
function clearAcross() {
  ui.acrossTable.replaceChildren();
  ui.acrossInfo.textContent = "";
  ui.acrossDownloads.hidden = true;
  if (window.Plotly) window.Plotly.purge(ui.acrossChart);
  ui.acrossChart.replaceChildren();
  across.axis = null;
}

function cell(value, type) {
  if (value === null || value === undefined) return "—";
  if (type !== "number") return String(value);
  return Number.isInteger(value) ? number.format(value) : value.toLocaleString("en-US", { maximumFractionDigits: 4 });
}

function renderAcross(result, text) {
  const rows = result.rows.slice();
  const table = document.createElement("table");
  table.className = "lbpe-metrics lbpe-across";
  const head = table.createTHead().insertRow();
  const body = table.createTBody();
  const fill = () => {
    body.replaceChildren();
    for (const row of rows) {
      const tr = body.insertRow();
      row.forEach((value, i) => {
        tr.insertCell().textContent = cell(value, result.types[i]);
      });
    }
  };
  result.headers.forEach((label, i) => {
    const th = document.createElement("th");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "sort";
    button.textContent = label;
    button.addEventListener("click", () => {
      const descending = th.getAttribute("aria-sort") !== "descending";
      for (const other of head.cells) other.removeAttribute("aria-sort");
      th.setAttribute("aria-sort", descending ? "descending" : "ascending");
      const key = (row) => (row[i] === null ? -Infinity : row[i]);
      rows.sort((a, b) => {
        const order = result.types[i] === "number" ? key(a) - key(b) : String(a[i]).localeCompare(String(b[i]));
        return descending ? -order : order;
      });
      fill();
    });
    th.append(button);
    head.append(th);
  });
  fill();
  ui.acrossTable.replaceChildren(table);
  const chars = [...text].length; // code points, as Python counts shown_chars (an emoji is one)
  const part = result.shown_chars < chars ? ` (its first ${number.format(result.shown_chars)} characters)` : "";
  ui.acrossInfo.textContent = result.methods
    ? `${rows.length} methods with ${result.vocab} on this text${part}, as it was when you pressed the button: ` +
      result.status.replace(/\*\*|`/g, "").replace(/^the text with \S+ and \d+ methods(?: \([^)]*\))?: /, "")
    : `${rows.length} vocabularies on this text${part}, as it was when you pressed the button.` +
      (state.special && result.special_note ? ` ${result.special_note.replace(/`/g, "")}` : "");
  if (!result.methods) ui.acrossDownloads.hidden = true;
  drawChart(ui.acrossChart, result.figure).catch((error) => showError(`The chart could not be drawn: ${error.message}`));
}

function describe(info) {
  const unit = info.unit === "byte" ? "byte-level" : "character-level";
  const source = info.source === "file" ? "loaded from your file (not in shared links)" : "bundled";
  const own = { "tokenizer.json": "the tokenizer.json's own pre-tokenizer", sentencepiece: "SentencePiece's normalisation" };
  const pre = own[info.pattern] || `pre-tokenizer ${info.pattern}`;
  ui.vocabInfo.textContent = `${info.name}: ${number.format(info.tokens)} tokens, ${unit}, ${pre} · ${source}`;
}

async function runDecode() {
  try {
    const result = JSON.parse(await call("decode", { ids: $("#decode-input").value }));
    $("#decoded").innerHTML = result.html;
  } catch (error) {
    $("#decoded").innerHTML = "";
    const p = document.createElement("p");
    p.className = "error";
    p.textContent = `Could not decode: ${error.message}`;
    $("#decoded").append(p);
  }
}

/** Decode again what is shown decoded, with the vocabulary now chosen (never another's words). */
function redecode() {
  if ($("#decoded").textContent.trim()) runDecode();
}

async function choosePreset(name) {
  showError("");
  setStatus("busy", `Loading the ${name} vocabulary…`);
  try {
    describe(JSON.parse(await call("preset", { name })));
    state.preset = name;
  } catch (error) {
    showError(`Could not load the ${name} vocabulary: ${error.message}`);
    ui.preset.value = state.preset;
  }
  writeFragment();
  schedule(0);
  runExplain(); // the steps depend on the vocabulary
  redecode();
}

/** Read vocabulary files into Python and show them; whether they loaded (if not, the error is
 * shown and the vocabulary before stays). */
async function loadVocabFiles(files) {
  showError("");
  lastFiles = files;
  ui.pattern.classList.remove("attention");
  const label = files.map((f) => f.name).join(" + ");
  setStatus("busy", `Reading ${label}…`);
  // A copy goes to the worker, so the pre-tokenizer can be changed later without reopening.
  const copies = files.map((f) => ({ name: f.name, data: f.data.slice(0) }));
  let info;
  try {
    info = JSON.parse(await call("files", { files: copies, pattern: ui.pattern.value }, copies.map((f) => f.data)));
  } catch (error) {
    info = { error: error.message };
  }
  patternAsked = Boolean(info.error && info.needs_pattern);
  if (info.error) {
    showError(`Could not load ${label}: ${info.error}`);
    if (info.needs_pattern) {
      ui.pattern.classList.add("attention");
      ui.pattern.focus();
    }
    setStatus("ready", "Ready");
    ui.preset.value = state.preset;
    return false;
  }
  fileVocab = { files, label };
  let option = ui.preset.querySelector(`option[value="${FILE_VOCAB}"]`);
  if (!option) {
    option = document.createElement("option");
    option.value = FILE_VOCAB;
    ui.preset.append(option);
  }
  option.textContent = `file: ${label}`;
  ui.preset.value = FILE_VOCAB;
  state.preset = FILE_VOCAB;
  describe(info);
  writeFragment();
  schedule(0);
  runExplain();
  redecode();
  return true;
}

/** A text file's text exactly as its bytes say, a byte-order mark included (as Python's
 * open(...).read() and the command line read it). */
async function readText(file) {
  const bytes = await file.arrayBuffer();
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new Error(`${file.name}: not UTF-8 text; convert it to UTF-8 first (e.g. iconv -t UTF-8)`);
  }
}

/** What the page says about an opened file whose text a text box cannot hold as it is ("" when
 * nothing): CR line ends (a text box keeps only LF) and a byte-order mark (invisible). */
function fileTextNote(name, text) {
  const notes = [];
  if (text.includes("\r")) {
    const kind = /\r(?!\n)/.test(text) ? "CR or CRLF" : "CRLF";
    notes.push(`its ${kind} line ends are counted as they are in the file, though the text box shows them as ` +
      "LF; editing the text makes them LF");
  }
  if (text.startsWith("\ufeff")) notes.push("it starts with a byte-order mark (U+FEFF), counted as a character");
  return notes.length ? `About ${name}: ${notes.join("; ")}.` : "";
}

let fileNote = "";

/** The text is no longer the opened file's: its note goes (if it is still the one shown). */
function dropFileNote() {
  if (fileNote && ui.error.textContent === fileNote) showError("");
  fileNote = "";
}

async function openTextFile(file) {
  showError("");
  let text;
  try {
    text = await readText(file);
  } catch (error) {
    showError(error.message);
    return;
  }
  ui.text.value = text;
  state.text = text; // not the text box's value, which has only LF line ends
  fileNote = fileTextNote(file.name, text);
  showError(fileNote);
  writeFragment();
  schedule(0);
}

function applyState() {
  ui.text.value = state.text;
  ui.showWs.checked = state.ws;
  ui.showIds.checked = state.ids;
  $("#show-special").checked = state.special;
  document.body.classList.toggle("show-ws", state.ws);
  document.body.classList.toggle("show-ids", state.ids);
}

function wire(presets) {
  ui.preset.addEventListener("change", () => {
    if (ui.preset.value === FILE_VOCAB && fileVocab) loadVocabFiles(fileVocab.files);
    else choosePreset(ui.preset.value);
  });
  ui.vocabFile.addEventListener("change", async () => {
    const files = await Promise.all([...ui.vocabFile.files].map(async (f) => ({ name: f.name, data: await f.arrayBuffer() })));
    ui.vocabFile.value = "";
    if (files.length) loadVocabFiles(files);
  });
  ui.pattern.addEventListener("change", () => {
    // Applies to rank files: read the last file chosen again with this pre-tokenizer while it is
    // shown or asked for one; a bundled vocabulary (or a file no longer shown) is kept.
    if (patternAsked && lastFiles) loadVocabFiles(lastFiles);
    else if (state.preset === FILE_VOCAB && fileVocab) loadVocabFiles(fileVocab.files);
    else {
      showError(`The pre-tokenizer menu applies to a .tiktoken file you load; ${state.preset} has its own ` +
        "pre-tokenizer and is kept.");
    }
  });
  ui.textFile.addEventListener("change", () => {
    const file = ui.textFile.files[0];
    ui.textFile.value = "";
    if (file) openTextFile(file);
  });
  ui.text.addEventListener("input", () => {
    state.text = ui.text.value;
    dropFileNote();
    writeFragment();
    schedule();
  });
  ui.text.addEventListener("dragover", (event) => event.preventDefault());
  ui.text.addEventListener("drop", (event) => {
    const file = event.dataTransfer.files[0];
    if (!file) return;
    event.preventDefault();
    openTextFile(file);
  });
  for (const [box, key] of [[ui.showWs, "ws"], [ui.showIds, "ids"], [$("#show-special"), "special"]]) {
    box.addEventListener("change", () => {
      state[key] = box.checked;
      applyState();
      writeFragment();
      schedule(0);
    });
  }
  for (const [picker, side] of [[ui.left, 0], [ui.right, 1]]) {
    picker.addEventListener("change", () => {
      state.methods[side] = picker.value;
      markPair();
      writeFragment();
      schedule(0);
    });
  }
  for (const [box, key] of [[ui.rate, "rate"], [ui.seed, "seed"]]) {
    box.addEventListener("input", () => {
      state[key] = box.value.trim();
      writeFragment();
      schedule();
    });
  }
  ui.acrossRun.addEventListener("click", runAcross);
  for (const radio of ui.acrossAxis) {
    radio.addEventListener("change", () => {
      if (!radio.checked || radio.value === state.axis) return;
      state.axis = radio.value;
      clearAcross();
      markAxis();
      writeFragment();
    });
  }
  for (const [box, key] of [[ui.acrossRate, "axisRate"], [ui.acrossSeed, "axisSeed"]]) {
    box.addEventListener("input", () => {
      state[key] = box.value.trim();
      markAxis();
      writeFragment();
    });
  }
  $("#decode-run").addEventListener("click", runDecode);
  $("#decode-input").addEventListener("keydown", (event) => { if (event.key === "Enter") runDecode(); });
  for (const button of document.querySelectorAll(".copy-ids")) {
    button.addEventListener("click", async () => {
      const ids = $(`.ids[data-mode="${button.dataset.mode}"]`).textContent;
      try {
        await navigator.clipboard.writeText(ids);
        button.textContent = "Copied";
      } catch {
        window.prompt("Copy these ids", ids);
      }
      setTimeout(() => { button.textContent = "Copy"; }, 1500);
    });
  }
  for (const el of document.querySelectorAll(".pane")) el.addEventListener("click", explainClick);
  let explainTimer = null;
  $("#explain-text").addEventListener("input", () => {
    clearTimeout(explainTimer);
    explainTimer = setTimeout(() => setExplain($("#explain-text").value), 250);
  });
  $("#explain-prev").addEventListener("click", () => { stopPlaying(); runExplain(Math.max(explainView.frame - 1, 0)); });
  $("#explain-next").addEventListener("click", () => {
    stopPlaying();
    runExplain(Math.min(explainView.frame + 1, explainView.frames - 1));
  });
  $("#explain-play").addEventListener("click", togglePlay);
  $("#explain-step").addEventListener("input", () => { stopPlaying(); runExplain(Number($("#explain-step").value)); });
  ui.example.addEventListener("change", () => {
    const chosen = EXAMPLES.find((e) => e.key === ui.example.value);
    ui.example.value = "";
    if (!chosen) return;
    state.text = chosen.text;
    dropFileNote();
    applyState();
    setExplain(chosen.explain, { write: false, at: String(chosen.text.indexOf(chosen.explain)) });
    if (chosen.vocabulary !== state.preset && presets.includes(chosen.vocabulary)) {
      ui.preset.value = chosen.vocabulary;
      choosePreset(chosen.vocabulary);
    } else {
      writeFragment();
      schedule(0);
    }
  });
  ui.share.addEventListener("click", async () => {
    writeFragment();
    const note = characters(state.text) > MAX_URL_TEXT ? ` (text over ${number.format(MAX_URL_TEXT)} characters is not included)` : "";
    try {
      await navigator.clipboard.writeText(location.href);
      setStatus("ready", `Link copied${note}`);
    } catch {
      window.prompt("Copy this link", location.href);
    }
  });
  window.addEventListener("hashchange", async () => {
    const next = readFragment();
    const vocabChanged = next.preset && next.preset !== state.preset && presets.includes(next.preset);
    // the file entry is one of the page's vocabularies only while a file is loaded
    const known = (name) => presets.includes(name) || (name === FILE_VOCAB && fileVocab !== null);
    const unknown = next.preset && !known(next.preset) ? next.preset : "";
    const fileWanted = next.preset === FILE_VOCAB && fileVocab !== null && state.preset !== FILE_VOCAB;
    const shown = state.preset;
    if ("text" in next) dropFileNote();
    if (!("explain" in next)) Object.assign(next, openingExplain("text" in next ? next.text : state.text));
    Object.assign(state, LINK_DEFAULTS, next); // what the link leaves out is as on a new page
    if (fileWanted) state.preset = shown; // the file, once it has loaded again
    const axisBefore = state.axis;
    const { pairError, axisError } = await linkOptions(next);
    if (state.axis !== axisBefore) clearAcross();
    if (!known(state.preset)) state.preset = ui.preset.value;
    applyState();
    $("#explain-text").value = state.explain;
    if (vocabChanged) {
      ui.preset.value = state.preset;
      await choosePreset(state.preset); // it clears the error line: the link's notes come after
    }
    // the file loaded last, shown again; if it cannot be, what was shown stays, with the reason
    const fileFailed = fileWanted && !(await loadVocabFiles(fileVocab.files));
    const failure = fileFailed ? ui.error.textContent : "";
    if (!vocabChanged && !(fileWanted && !fileFailed)) {
      schedule(0);
      runExplain();
    }
    showError([failure, linkNotes(next, { pairError, axisError, unknown })].filter(Boolean).join(" "));
  });
}

function enableControls() {
  const controls = ".controls [disabled], #text, #across-run, #across-axis input, #explain-text, #explain-prev, " +
    "#explain-next, #explain-play, #decode-input, #decode-run";
  for (const el of document.querySelectorAll(controls)) el.disabled = false;
}

// ---- typing while Python starts ----
// The text box takes text at once; the panes keep what they show, marked as not yet this text,
// until Python is ready: then the text typed by then is the first one compared.

let typedWhileStarting = false;

function typedEarly() {
  typedWhileStarting = true;
  state.text = ui.text.value;
  writeFragment();
  document.body.classList.add("updating");
  ui.textInfo.textContent = "Python is starting: the panes will show this text as soon as it is ready…";
}

async function main() {
  Object.assign(state, readFragment());
  Object.assign(state, linkedPairState(state.linkedPair)); // as the link spells it, until Python checks it
  Object.assign(state, linkedAxisState(state.linkedAxis));
  applyState();
  if (!earlyRender()) firstRender();
  ui.text.addEventListener("input", typedEarly);
  ui.text.disabled = false;
  let boot;
  try {
    boot = await ready;
  } catch (error) {
    ui.text.removeEventListener("input", typedEarly);
    setStatus("error", "Python could not start");
    showError(`Python could not start in this browser: ${error.message}`);
    return;
  }
  ui.text.removeEventListener("input", typedEarly); // wire() listens from here on
  $("#token-css").textContent = boot.css;
  tokenCss = boot.css;
  const presets = boot.site.presets.map((p) => p.name);
  ui.preset.replaceChildren();
  for (const p of boot.site.presets) {
    const option = document.createElement("option");
    option.value = p.name;
    option.textContent = p.label || p.name;
    option.title = p.description;
    ui.preset.append(option);
  }
  ui.versions.textContent =
    `lbpe ${boot.site.lbpe} · Python ${boot.python} on Pyodide ${boot.site.pyodide} · plotly.js ${boot.site.plotly}`;
  describe(boot.info);
  METHOD_NAMES = Object.fromEntries(boot.methods);
  METHOD_ORDER = boot.methods.map(([value]) => value);
  buildAxisMethods(boot.methods);
  for (const picker of [ui.left, ui.right]) {
    picker.replaceChildren();
    for (const [value, name] of boot.methods) {
      const option = document.createElement("option");
      option.value = value;
      option.textContent = name;
      picker.append(option);
    }
  }
  EXAMPLES = boot.examples;
  for (const e of EXAMPLES) {
    const option = document.createElement("option");
    option.value = e.key;
    option.textContent = e.label;
    ui.example.append(option);
  }
  const linked = readFragment();
  if (typedWhileStarting) {
    // what the person typed while Python started is the text, however long (not the link's)
    linked.text = state.text = ui.text.value;
    delete linked.linkedTextChars;
  }
  const { pairError, axisError } = await linkOptions(linked);
  OPENING = EXAMPLES.find((e) => e.vocabulary === boot.site.default_preset) || EXAMPLES[0] || null;
  if (!("text" in linked) && OPENING) state.text = OPENING.text;
  if (!("explain" in linked)) Object.assign(state, openingExplain(state.text));
  applyState();
  $("#explain-text").value = state.explain;
  state.preset = boot.site.default_preset;
  ui.preset.value = state.preset;
  wire(presets);
  enableControls();
  const wanted = linked.preset;
  if (wanted && wanted !== state.preset && presets.includes(wanted)) {
    ui.preset.value = wanted;
    await choosePreset(wanted);
  }
  const unknown = wanted && !presets.includes(wanted) ? wanted : "";
  const notes = linkNotes(linked, { pairError, axisError, unknown });
  if (notes) showError(notes);
  api.readySeconds = performance.now() / 1000;
  api.bootSeconds = boot.seconds;
  api.bootTimings = boot.timings;
  setStatus("ready", "Ready");
  writeFragment();
  schedule(0); // Python's own result: the same panes (drawn again only where they differ) and the charts
  runExplain();
  // The offline copy (every file of the site) is made once Python is up, so that the first
  // visit's start-up does not compete with it.
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register(new URL("sw.js", import.meta.url).href).catch((error) => {
      console.warn("offline copy unavailable:", error);
    });
  }
}

// For tests and the benchmark (bench/web_speed.py): the same calls the page makes.
const api = {
  ready,
  restarts: 0, // workers restarted after a request passed its deadline
  get deadlineScale() {
    return deadlineScale;
  },
  set deadlineScale(factor) {
    deadlineScale = factor;
  },
  rendered,
  across,
  call,
  encode: async (text, mode) => JSON.parse(await call("encode", { text, mode })),
  bench: async (text, mode, repeat = 3) => JSON.parse(await call("bench", { text, mode, repeat })),
};
window.lbpePage = api;

main();
