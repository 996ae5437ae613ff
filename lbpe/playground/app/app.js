// The Gradio playground's page script (lbpe/playground/app/__init__.py passes it to Gradio as `js`, inside
// one function, after lbpe/playground/display/panes.js and after `LBPE`, the server's settings:
// {presets: the bundled vocabularies' names, labels: {preset: how the picker lists it},
// maxLinkText: the longest text a link carries, uploads: {zone id: {limit: bytes (0: none), together}}}).
// The app's events call window.lbpeApp's functions by name; they never reach the server.

// the view's state in the URL query (see lbpe.playground.service.links.link_state); uploaded files never go in a link.
// Until the page's load events are answered (restored()) changes wait, the last of each key kept:
// the server's restore reads a link from the address when its request is sent, after the page
// has opened and set its first values (which would have put the default text there first).
let linkWaiting = null;
window.lbpeLink = (changes) => {
  if (document.documentElement.dataset.lbpeRestored !== "1") {
    linkWaiting = Object.assign(linkWaiting || {}, changes);
    return;
  }
  const url = new URL(location.href);
  for (const [key, value] of Object.entries(changes)) {
    if (value === null || value === undefined) url.searchParams.delete(key); // "" stays: an empty text
    else url.searchParams.set(key, value);
  }
  // only on a change: a same-document navigation restyles the whole page (0.2 s with two long panes)
  if (url.href !== location.href) history.replaceState(null, "", url);
};

// a click on a token of either pane asks the server which span to explain (explain_click)
// through the hidden #explain-at box, then scrolls to the Explain view
document.addEventListener("click", (event) => {
  const token = event.target.closest("#bpe-pane .lbpe-tok[data-s], #lbpe-pane .lbpe-tok[data-s]");
  if (!token) return;
  const box = document.querySelector("#explain-at textarea, #explain-at input");
  if (!box) return;
  box.value = token.dataset.s + ":" + Date.now();
  box.dispatchEvent(new Event("input", { bubbles: true }));
  const view = document.getElementById("explain-box");
  if (view) view.scrollIntoView({ behavior: "smooth", block: "start" });
});

// Files of a type an upload zone does not take, or over the server's limit for it, are refused
// here, before they are sent: the hidden #<zone>-refused box asks the server for its own words
// (refused_note), shown in the zone's note. Gradio refuses either only with a notice that fades,
// far from the box (the limit in MiB), and the reason of the file before stayed in the note. A
// capture listener runs before Gradio's own.
// Gradio's rule for file_types: the name's extension, or "text" for any text/* type.
const takes = (types, file) =>
  !types ||
  !types.length ||
  types.some((t) =>
    t.startsWith(".") ? file.name.toLowerCase().endsWith(t.toLowerCase()) : (file.type || "").startsWith(t + "/"),
  );
const refuseUploads = (event) => {
  const target = event.target;
  if (!target || !target.closest) return;
  for (const [zone, rule] of Object.entries(LBPE.uploads || {})) {
    if (!target.closest("#" + zone)) continue;
    const dropped = event.type === "drop" ? event.dataTransfer && event.dataTransfer.files : target.files;
    const files = Array.from(dropped || []);
    if (!files.length) return;
    const sizes = files.map((f) => f.size);
    const size = rule.together ? sizes.reduce((a, b) => a + b, 0) : Math.max(...sizes);
    const other = files.find((f) => !takes(rule.types, f));
    if (!other && (!rule.limit || size <= rule.limit)) return;
    event.stopImmediatePropagation();
    event.preventDefault();
    if (event.type === "change") target.value = "";
    const box = document.querySelector(`#${zone}-refused textarea, #${zone}-refused input`);
    if (!box) return;
    refusedAt[zone] = compares.started;
    const asked = other
      ? [other.name, other.size, files.length, Date.now(), "type"]
      : [rule.together ? "" : files[sizes.indexOf(size)].name, size, files.length, Date.now()];
    box.value = JSON.stringify(asked);
    box.dispatchEvent(new Event("input", { bubbles: true }));
    return;
  }
};
document.addEventListener("change", refuseUploads, true);
document.addEventListener("drop", refuseUploads, true);

const busyNotes = () => document.querySelectorAll("#bpe-pane .lbpe-busy, #lbpe-pane .lbpe-busy");

// CRC-32 (zlib's) of a string's UTF-16 code units, each as two bytes, low byte first: what
// lbpe.playground.app.handlers.compare_tab.asked computes of the text a comparison was of
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const utf16Crc32 = (text) => {
  let c = 0xffffffff;
  for (let i = 0; i < text.length; i++) {
    const u = text.charCodeAt(i);
    c = CRC_TABLE[(c ^ u) & 0xff] ^ (c >>> 8);
    c = CRC_TABLE[(c ^ (u >>> 8)) & 0xff] ^ (c >>> 8);
  }
  return (c ^ 0xffffffff) >>> 0;
};

// A text's length in characters (code points), as Python counts it: a link's limit is Python's.
const characters = (text) => {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
};

// Comparisons started and ended (answered or failed), the controls the last one started sent,
// and the controls last asked again for. Two comparisons of one page can be in flight at once
// (Gradio starts a second one when a change comes before the first is under way) and the older
// text's can end last.
const compares = { started: 0, ended: 0, sent: null, askedAgain: null };

// The comparison's controls as one string: the text by its length and CRC (as the server's
// details.asked gives it); dropout's rate and seed only while it is compared (their hidden
// boxes keep a value)
const compareKey = (text, vocab, ws, ids, sp, left, right, rate, seed) => {
  text = text || "";
  if (left !== "dropout" && right !== "dropout") rate = seed = null;
  return JSON.stringify([text.length, utf16Crc32(text), vocab, ws, ids, sp, left, right, rate, seed]);
};

// The panes are not of the controls ``now`` holds: unless another comparison starts or ends in
// a moment (that one's end checks again), the page presses "Compare again", once for the same
// controls until an answer agrees.
const askAgain = (now) => {
  const { started, ended } = compares;
  setTimeout(() => {
    if (compares.started !== started || compares.ended !== ended) return;
    if (compares.askedAgain === now) {
      console.warn("lbpe: the comparison shown is not of the text and options now set; edit them to compare again");
      return;
    }
    compares.askedAgain = now;
    const again = document.querySelector("#compare-again");
    if (again) again.click();
  }, 250);
};
// upload zone -> how many comparisons had started when a file was last refused there
const refusedAt = {};

window.lbpeApp = {
  // the Compare view's state into the URL
  link(text, vocab, ws, ids, sp, span, where, left, right, rate, seed) {
    // the methods only when they are not the classic pair; dropout's rate and seed while it is one of them
    const pair = left && right && (left !== "bpe" || right !== "lbpe") ? `${left},${right}` : null;
    const dropout = left === "dropout" || right === "dropout";
    const chars = typeof text === "string" ? characters(text) : 0;
    window.lbpeLink({
      // the text, an empty one too (a link without one opens on the default text)
      t: typeof text === "string" && chars <= LBPE.maxLinkText ? text : null,
      // a text too long for a link: its length, so the receiver is told what was left out
      tl: chars > LBPE.maxLinkText ? String(chars) : null,
      v: LBPE.presets.includes(vocab) ? vocab : null,
      ws: ws ? null : "0",
      ids: ids ? "1" : null,
      sp: sp ? "1" : null,
      // the Explain box, an empty one too (a link without it opens on the default span)
      x: typeof span === "string" ? span : null,
      // where the span stands in the text, while it is there (a typed word is explained on its own)
      xa: span && text && where !== "" && text.slice(Number(where), Number(where) + span.length) === span ? where : null,
      m: pair,
      dr: dropout && rate !== null && rate !== undefined && rate !== "" ? String(rate) : null,
      seed: dropout && seed !== null && seed !== undefined && seed !== "" ? String(seed) : null,
    });
    return [];
  },
  // the Across or Corpus view's axis into the URL: the methods axis (vocabularies, the default, say
  // nothing), its methods unless every one is ticked, dropout's rate and seed while it is ticked
  axis(axis, methods, rate, seed) {
    const on = axis === "methods";
    const ticked = Array.isArray(methods) ? methods : [];
    const every = Array.isArray(LBPE.methods) && LBPE.methods.every((m) => ticked.includes(m));
    const dropout = on && ticked.includes("dropout");
    window.lbpeLink({
      ax: on ? "methods" : null,
      ms: on && !every ? ticked.join(",") : null,
      mdr: dropout && rate !== null && rate !== undefined && rate !== "" ? String(rate) : null,
      mseed: dropout && seed !== null && seed !== undefined && seed !== "" ? String(seed) : null,
    });
    return [];
  },
  // The vocabulary picker's value changed. Gradio's dropdown does not redraw its text while it has
  // the focus (opened, then closed with Esc, then a file dropped on the upload box): the picker
  // would name the old vocabulary while the panes use the new one. Its text becomes the new
  // one's name, as a person would type it, and it lets go of the focus (which keeps that name).
  picked(value) {
    const input = document.querySelector("#vocab input");
    if (!input || document.activeElement !== input || typeof value !== "string") return [];
    input.value = LBPE.labels[value] || value;
    input.dispatchEvent(new Event("input", { bubbles: true }));
    input.blur();
    return [];
  },
  // a link's own text and panes are in place (lbpe.playground.app.handlers.restore): show them (APP_HEAD hid
  // the default text and what was computed from it). ``applied`` false: the restore failed, and
  // the address keeps the link (reloaded, it is tried again) rather than the defaults shown
  restored(applied = true) {
    document.documentElement.classList.remove("lbpe-opening");
    document.documentElement.dataset.lbpeRestored = "1"; // the page's load events are answered
    if (!applied) linkWaiting = null;
    if (linkWaiting) {
      const waiting = linkWaiting;
      linkWaiting = null;
      window.lbpeLink(waiting);
    }
    return [];
  },
  // the open tab into the URL (null: Compare, the default)
  view(name) {
    window.lbpeLink({ view: name });
    return [];
  },
  // Copy link: the URL to the clipboard, and what the link leaves out
  copy(text, vocab) {
    const left = [];
    if (typeof text === "string" && characters(text) > LBPE.maxLinkText) {
      left.push(`the text (over ${LBPE.maxLinkText.toLocaleString("en-US")} characters)`);
    }
    if (!LBPE.presets.includes(vocab)) {
      const kind = String(vocab).startsWith("trained: ") ? "trained" : "uploaded";
      left.push(`the ${kind} vocabulary (only bundled ones go in a link)`);
    }
    const note = left.length ? " It leaves out " + left.join(" and ") + "." : "";
    const done = (how) => {
      const box = document.querySelector("#link-note");
      if (!box) return;
      box.textContent = how + note;
      // said once: gone after a while (or at the next copy)
      clearTimeout(window.lbpeLinkNoteTimer);
      window.lbpeLinkNoteTimer = setTimeout(() => { if (box.textContent === how + note) box.textContent = ""; }, 6000);
    };
    navigator.clipboard.writeText(location.href).then(() => done("Link copied."), () => {
      window.prompt("Copy this link", location.href);
      done("Link shown.");
    });
    return [];
  },
  // "updating…" on both panes while a comparison runs: Gradio's own progress overlay (or any
  // class set on a pane) would restyle every token of both panes, twice per keystroke
  busy(inputs) {
    compares.started += 1;
    // kept as sent, made a key only if the comparison fails (a text's CRC is not made per keystroke)
    compares.sent = inputs.slice();
    for (const note of busyNotes()) note.hidden = false;
    return inputs;
  },
  // ...hidden when the comparison ends (also when its panes came out unchanged). The answer
  // now on the panes must be of the controls as they are now (details.asked, from the server):
  // if it is not, the page asks again.
  done(details, text, vocab, ws, ids, sp, left, right, rate, seed) {
    compares.ended += 1;
    for (const note of busyNotes()) note.hidden = true;
    const asked = details && details.asked;
    if (!asked) return [];
    const now = compareKey(text, vocab, ws, ids, sp, left, right, rate, seed);
    const shown = JSON.stringify([
      asked.text_units, asked.text_crc32, asked.vocab, asked.whitespace, asked.ids, asked.specials,
      asked.left, asked.right, asked.dropout, asked.seed,
    ]);
    if (now === shown) {
      compares.askedAgain = null;
      return [];
    }
    askAgain(now);
    return [];
  },
  // A comparison succeeded: its view's note (the reason of a failed one) is cleared, unless a
  // file was refused in ``zone`` since the last comparison started (this one began before the
  // refusal): the refusal stays until any comparison ends once another has started after it.
  settled(note, zone) {
    return refusedAt[zone] === compares.started ? note : "";
  },
  // the server refused a file sent to ``zone`` (not UTF-8, say): its reason stays as the page's own refusals do
  refused(zone) {
    refusedAt[zone] = compares.started;
    return [];
  },
  // a comparison failed: its reason shows above the panes, which keep the last one. Gradio's page
  // drops a change it held back while the failed one ran ("always_last" runs it only after a
  // success), so if the controls changed since that comparison started, the page asks again.
  failed(text, vocab, ws, ids, sp, left, right, rate, seed) {
    compares.ended += 1;
    for (const note of busyNotes()) note.hidden = true;
    if (compares.sent === null) return [];
    // sent: the key shown, the text, vocabulary, three checkboxes, the session, specials, the pair, rate, seed
    const [, text0, vocab0, ws0, ids0, , sp0, left0, right0, rate0, seed0] = compares.sent;
    const now = compareKey(text, vocab, ws, ids, sp, left, right, rate, seed);
    if (now !== compareKey(text0, vocab0, ws0, ids0, sp0, left0, right0, rate0, seed0)) askAgain(now);
    return [];
  },
  // the ids boxes and, while its accordion is open, the JSON view, filled from the comparison's
  // details in the browser (a JSON tree of every id is slow to draw, so only when open)
  details(details) {
    const ids = (side) =>
      (details && details[side] && Array.isArray(details[side].ids)) ? details[side].ids.join(" ") : "";
    return [ids("bpe"), ids("lbpe"), window.lbpeDetailsOpen ? details : null];
  },
  detailsOpen(open, details) {
    window.lbpeDetailsOpen = open;
    return open ? details : null;
  },
};
