// The two panes of a comparison, made to work together: one file for the Gradio app (lbpe/playground/app/
// passes it to Gradio as part of its page script) and the browser page (lbpe build-web writes it next to
// index.html). It only reads what lbpe.playground.display renders: tokens are .lbpe-tok spans inside
// .lbpe-pane[data-mode] with their character range in data-s / data-e, and the list of
// differences holds .lbpe-jump buttons with the range of each differing span.
//
// * hover a token, or focus it, or tap it: a card with its id(s) and spelling, and every token
//   of both panes that covers the same characters lit;
// * keyboard: each pane's token box is one Tab stop (tabindex 0 in the markup); there the arrow
//   keys (Home, End) move between its tokens, which take the focus one at a time (a focused token
//   is a button described by the card), Enter or Space clicks the token (the page and the app
//   explain it), Escape hides the card;
// * touch: the first tap on a token shows its card only, a second tap on it clicks it;
// * a difference in the list: both panes scroll to it and light it;
// * scrolling one pane scrolls the other to the same place in the text;
// * lbpePanes.draw(host, markup) draws a pane: when host shows an earlier text, only the runs of
//   tokens that changed are replaced (a keystroke in a long text redraws one run, not 10,000
//   tokens) and the pane keeps its place in the text (the token at the top of the view).
(() => {
  if (window.lbpePanes) return;
  const LIT = "lbpe-lit";
  let card = null;
  let cardToken = null; // the token the card describes
  let syncing = false;

  const tokens = (root) => [...root.querySelectorAll(".lbpe-pane .lbpe-tok[data-s]")];
  const range = (t) => [Number(t.dataset.s), Number(t.dataset.e ?? t.dataset.s)];

  function light(a, b) {
    for (const t of document.querySelectorAll(`.${LIT}`)) t.classList.remove(LIT);
    const lit = [];
    for (const t of tokens(document)) {
      const [s, e] = range(t);
      if ((s < b && e > a) || (s === e && s >= a && s < b)) {
        t.classList.add(LIT);
        lit.push(t);
      }
    }
    return lit;
  }

  function showCard(token, hint = "") {
    cardToken = token;
    if (token.title) {
      // the card replaces the browser's tooltip (slow, and absent on touch screens)
      token.dataset.title = token.title;
      token.removeAttribute("title");
    }
    if (!card) {
      card = document.createElement("div");
      card.className = "lbpe-card";
      card.id = "lbpe-card";
      card.setAttribute("role", "tooltip");
      document.body.append(card);
    }
    let text = token.dataset.title;
    if (!text) {
      // an ordinary token: its id and the text it covers
      const own = [...token.childNodes].filter((n) => !(n.classList && n.classList.contains("lbpe-id")));
      text = `#${token.dataset.i}  "${own.map((n) => n.textContent).join("")}"`;
      if (token.classList.contains("lbpe-diff")) text += "\ndiffers between BPE and LBPE";
    }
    card.textContent = hint ? `${text}\n${hint}` : text;
    card.hidden = !card.textContent;
    const box = token.getBoundingClientRect();
    const top = box.bottom + 6 + window.scrollY;
    const left = Math.max(4, Math.min(box.left + window.scrollX, window.scrollX + document.documentElement.clientWidth - card.offsetWidth - 8));
    card.style.top = `${top}px`;
    card.style.left = `${left}px`;
  }

  function hideCard() {
    cardToken = null;
    if (card) card.hidden = true;
  }

  function scroller(pane) {
    return pane.querySelector(".lbpe-tokens");
  }

  function topOf(token) {
    // a token's top in its pane's scrolled area (a block of lines, when in one, is its offsetParent)
    const run = token.offsetParent;
    return token.offsetTop + (run && run.classList.contains("lbpe-run") ? run.offsetTop : 0);
  }

  // A block of lines the browser has not drawn yet holds a guessed height (display.css). Before
  // a scroll to a token, the blocks from two screens above it to one below that were never drawn
  // are laid out and kept drawn until the browser has drawn them once (it remembers their heights
  // from then on), so the token's place is the one it is drawn at.
  const REVEAL_MOST = 24; // blocks at most (a hidden pane's blocks are 0 px high)
  // a block's height is known at the width it was drawn at (lbpeSized: that width)
  document.addEventListener("contentvisibilityautostatechange", (event) => {
    if (!event.skipped && event.target instanceof Element) event.target.lbpeSized = event.target.clientWidth;
  }, true);

  function reveal(token) {
    const block = token.closest(".lbpe-lines");
    if (!block) return;
    const width = block.clientWidth;
    const todo = [];
    const walk = (next, reach) => {
      let run = block, h = 0, k = 0;
      for (; run && h < reach && k < REVEAL_MOST; run = next(run), k++) {
        if (run.classList.contains("lbpe-lines") && run.lbpeSized !== width &&
            !run.classList.contains("lbpe-drawn")) {
          todo.push(run);
        }
        h += run.offsetHeight; // read before any block changes: one layout for the walk
      }
    };
    walk((run) => run.previousElementSibling, 2 * window.innerHeight);
    walk((run) => run.nextElementSibling, window.innerHeight);
    if (!todo.length) return;
    for (const run of todo) run.classList.add("lbpe-drawn");
    requestAnimationFrame(() => requestAnimationFrame(() => {
      for (const run of todo) {
        run.classList.remove("lbpe-drawn");
        run.lbpeSized = width;
      }
    }));
  }

  function centre(container, token) {
    if (!container || !token || !container.clientHeight) return;
    reveal(token);
    container.scrollTop = Math.max(topOf(token) - container.clientHeight / 2, 0);
  }

  function jump(a, b) {
    const lit = light(a, b);
    for (const pane of document.querySelectorAll(".lbpe-pane[data-mode]")) {
      centre(scroller(pane), lit.find((t) => pane.contains(t)));
    }
    const first = document.querySelector(".lbpe-pane[data-mode]");
    if (first) first.scrollIntoView({ behavior: "smooth", block: "nearest" });
  }

  function firstVisible(container) {
    // the first token whose box reaches below the top of the scrolled area (tokens are in order)
    const list = container.querySelectorAll(".lbpe-tok[data-s]");
    let lo = 0, hi = list.length - 1, found = null;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (topOf(list[mid]) + list[mid].offsetHeight > container.scrollTop) {
        found = list[mid];
        hi = mid - 1;
      } else {
        lo = mid + 1;
      }
    }
    return found;
  }

  function atChar(container, s) {
    // the last token starting at or before character s
    const list = container.querySelectorAll(".lbpe-tok[data-s]");
    let lo = 0, hi = list.length - 1, found = list[0] || null;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (Number(list[mid].dataset.s) <= s) {
        found = list[mid];
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  // Where a pane's view is: the character its first token in sight starts at, and the pixels of
  // that token above the view.
  function placeOf(container) {
    const top = firstVisible(container);
    return top ? { token: top, s: Number(top.dataset.s), offset: container.scrollTop - topOf(top) } : null;
  }

  function goTo(container, place) {
    const kept = place.token.isConnected && container.contains(place.token);
    const match = kept ? place.token : atChar(container, place.s);
    if (!match || !container.clientHeight) return;
    reveal(match);
    container.scrollTop = topOf(match) + place.offset;
    container.lbpePlace = { token: match, s: Number(match.dataset.s), offset: place.offset };
  }

  // A hidden pane (another tab open) has no layout: a redraw there cannot read its place, and
  // the browser would show it again at its old pixel offset, which after an edit above the
  // view, or at another width, is other text. Each pane keeps its place at every scroll and
  // move (lbpePlace); a redraw while hidden moves it with the edit, and a pane coming back from
  // no size goes to it. A pane narrowed or widened in view reflows its lines under the same
  // pixel offset, with no scroll event: it goes to its place too.
  const sizes = new ResizeObserver((entries) => {
    for (const { target } of entries) {
      const was = target.lbpeHidden, width = target.lbpeWidth;
      target.lbpeHidden = !target.clientHeight;
      target.lbpeWidth = target.clientWidth;
      if (target.lbpeHidden || !target.lbpePlace) continue;
      if (was || (width !== undefined && width !== target.clientWidth)) goTo(target, target.lbpePlace);
    }
  });

  function watch(box) {
    if (box.lbpeWatched) return;
    box.lbpeWatched = true;
    sizes.observe(box);
  }

  function textEnd(container) {
    const list = container.querySelectorAll(".lbpe-tok[data-s]");
    return list.length ? Number(list[list.length - 1].dataset.e) : 0;
  }

  function syncFrom(container) {
    if (syncing) return;
    const pane = container.closest(".lbpe-pane[data-mode]");
    const place = pane && placeOf(container);
    if (!place) return;
    container.lbpePlace = place;
    syncing = true;
    for (const other of document.querySelectorAll(".lbpe-pane[data-mode]")) {
      const box = scroller(other);
      if (other !== pane && box) goTo(box, place);
    }
    requestAnimationFrame(() => { syncing = false; });
  }

  // ---- keyboard: one Tab stop per pane, the arrow keys inside it ----

  let pointerDown = false; // a focus that comes with a pointer press stays where the press put it
  let lastPointer = "";
  let tapped = null; // the token a first tap showed the card of
  const TOKEN = ".lbpe-pane .lbpe-tok[data-s]";

  function focusToken(box, token) {
    if (!token) return;
    token.tabIndex = -1; // focusable by script, outside the Tab order
    token.setAttribute("role", "button");
    token.setAttribute("aria-describedby", "lbpe-card");
    box.tabIndex = -1; // while a token holds the focus, Shift+Tab leaves the pane
    box.lbpeAt = Number(token.dataset.s);
    token.focus();
  }

  document.addEventListener("pointerdown", (event) => {
    pointerDown = true;
    lastPointer = event.pointerType;
  }, true);
  document.addEventListener("pointerup", () => { pointerDown = false; }, true);
  document.addEventListener("focusin", (event) => {
    const target = event.target;
    if (!(target instanceof Element)) return;
    if (target.matches(".lbpe-pane .lbpe-tokens")) {
      if (pointerDown) return;
      // Tab into a pane: the token it held last, else the first one in sight
      const list = target.querySelectorAll(".lbpe-tok[data-s]");
      const at = target.lbpeAt;
      const back = at === undefined ? null : atChar(target, at);
      focusToken(target, back || firstVisible(target) || list[0]);
    } else if (target.matches(TOKEN)) {
      const [s, e] = range(target);
      light(s, Math.max(e, s + 1));
      showCard(target);
    }
  });
  document.addEventListener("focusout", (event) => {
    const target = event.target;
    if (!(target instanceof Element) || !target.matches(TOKEN)) return;
    const box = target.closest(".lbpe-tokens");
    if (box && !(event.relatedTarget instanceof Element && box.contains(event.relatedTarget))) {
      box.tabIndex = 0; // the pane is a Tab stop again
      hideCard();
    }
  });
  document.addEventListener("keydown", (event) => {
    const target = event.target;
    if (!(target instanceof Element)) return;
    const inBox = target.matches(".lbpe-pane .lbpe-tokens");
    if (!inBox && !target.matches(TOKEN)) return;
    const box = inBox ? target : target.closest(".lbpe-tokens");
    const list = [...box.querySelectorAll(".lbpe-tok[data-s]")];
    if (!list.length) return;
    const k = inBox ? -1 : list.indexOf(target);
    let next = null;
    if (event.key === "ArrowRight" || event.key === "ArrowDown") next = list[Math.min(k + 1, list.length - 1)];
    else if (event.key === "ArrowLeft" || event.key === "ArrowUp") next = list[Math.max(k - 1, 0)];
    else if (event.key === "Home") next = list[0];
    else if (event.key === "End") next = list[list.length - 1];
    else if ((event.key === "Enter" || event.key === " ") && !inBox) {
      event.preventDefault();
      lastPointer = "";
      target.click();
      return;
    } else if (event.key === "Escape") {
      hideCard();
      return;
    } else {
      return;
    }
    event.preventDefault();
    focusToken(box, next);
  });
  // a tap on a touch screen: the first one shows the card (and nothing else hears of it), a
  // second one on the same token goes on as a click
  document.addEventListener("click", (event) => {
    const token = event.target instanceof Element ? event.target.closest(TOKEN) : null;
    if (!token || lastPointer !== "touch" || event.detail === 0) return;
    if (tapped !== token) {
      event.stopImmediatePropagation();
      event.preventDefault();
      tapped = token;
      const [s, e] = range(token);
      light(s, Math.max(e, s + 1));
      showCard(token, "(tap again to explain it)");
    } else {
      tapped = null;
    }
  }, true);

  function hover(token) {
    const [s, e] = range(token);
    light(s, Math.max(e, s + 1));
    showCard(token);
  }
  // Where the pointer rested when a jump scrolled the page. A token that then slides under it
  // gets the browser's mouseover although the person did nothing: that one is not a hover, and
  // the span jumped to stays lit until the pointer moves.
  let pointerAt = null;
  let restingAt = null;
  const samePlace = (event, at) => at !== null && event.screenX === at[0] && event.screenY === at[1];
  document.addEventListener("mousemove", (event) => {
    pointerAt = [event.screenX, event.screenY];
    if (restingAt === null || samePlace(event, restingAt)) return;
    restingAt = null;
    const token = event.target.closest(TOKEN);
    if (token) hover(token);
  });
  document.addEventListener("mouseover", (event) => {
    const token = event.target.closest(TOKEN);
    if (!token || samePlace(event, restingAt)) return;
    restingAt = null;
    hover(token);
  });
  document.addEventListener("mouseout", (event) => {
    if (event.target.closest(".lbpe-pane .lbpe-tok[data-s]") && !event.relatedTarget?.closest?.(".lbpe-tok")) hideCard();
  });
  document.addEventListener("click", (event) => {
    const button = event.target.closest(".lbpe-jump[data-s]");
    if (button) {
      // a click by mouse is where the pointer is; one by keyboard leaves it where it was seen last
      restingAt = event.detail > 0 ? [event.screenX, event.screenY] : pointerAt;
      jump(Number(button.dataset.s), Number(button.dataset.e));
      return;
    }
    const token = event.target.closest(".lbpe-pane .lbpe-tok[data-s]");
    if (token) {
      if (cardToken !== token) showCard(token);
    } else {
      tapped = null;
      hideCard();
    }
  });
  document.addEventListener("scroll", (event) => {
    const target = event.target;
    if (target instanceof Element && target.matches(".lbpe-pane .lbpe-tokens")) syncFrom(target);
    if (cardToken && cardToken.isConnected) showCard(cardToken); // the card follows its token
    else hideCard();
  }, true);

  const RUN_MARK = "<!--r-->"; // between the runs of a long pane (lbpe.playground.display.RUN_MARK)

  function parse(markup) {
    const t = document.createElement("template");
    t.innerHTML = markup;
    return t.content;
  }

  function draw(host, markup) {
    if (host.lbpeShown === markup) return;
    const parts = host.lbpeParts || [];
    const next = markup.split(RUN_MARK); // [pane start, run, run, ..., pane end]
    const pane = host.firstElementChild;
    const box = pane && pane.querySelector(".lbpe-tokens");
    const runs = box ? [...box.children] : [];
    // The place in view is kept by its token when that stays, else by its character, not by
    // pixel (blocks drawn anew hold guessed heights). A token in a run after the first one that
    // changed stood after the edit: its character moves by what the text grew or shrank, held
    // at or after the edit's run.
    const hidden = box !== null && !box.getClientRects().length;
    const place = !box ? null : hidden ? box.lbpePlace || null : box.scrollTop ? placeOf(box) : null;
    const length = box ? textEnd(box) : 0;
    let pastEdit = false, floor = 0;
    if (next.length < 3 || parts.length < 3 || next[next.length - 1] !== parts[parts.length - 1] ||
        runs.length !== parts.length - 2) {
      host.innerHTML = markup;
    } else {
      if (next[0] !== parts[0]) { // the heading and the pane's attributes (counts, classes)
        const head = parse(next[0] + next[next.length - 1]).firstElementChild;
        for (const name of pane.getAttributeNames()) if (!head.hasAttribute(name)) pane.removeAttribute(name);
        for (const name of head.getAttributeNames()) pane.setAttribute(name, head.getAttribute(name));
        const title = pane.querySelector(".lbpe-head");
        const newTitle = head.querySelector(".lbpe-head");
        if (title && newTitle) title.replaceWith(newTitle);
        const newBox = head.querySelector(".lbpe-tokens");
        if (newBox && box.className !== newBox.className) box.className = newBox.className;
      }
      const before = parts.length - 2;
      const after = next.length - 2;
      let a = 0; // runs equal at the start
      while (a < before && a < after && parts[a + 1] === next[a + 1]) a++;
      let b = 0; // and at the end
      while (b < before - a && b < after - a && parts[parts.length - 2 - b] === next[next.length - 2 - b]) b++;
      if (place && a < runs.length) {
        const first = runs[a].querySelector(".lbpe-tok[data-s]");
        floor = first ? Number(first.dataset.s) : 0;
        const at = place.token.closest(".lbpe-run");
        pastEdit = at !== null && runs.indexOf(at) > a;
      }
      const fresh = parse(next.slice(a + 1, next.length - 1 - b).join(""));
      const anchor = runs[before - b] || null;
      for (const run of runs.slice(a, before - b)) run.remove();
      box.insertBefore(fresh, anchor);
    }
    const now = host.querySelector(".lbpe-tokens");
    if (place && now) {
      if (!place.token.isConnected) {
        const end = textEnd(now);
        place.s = Math.min(Math.max(place.s + (pastEdit ? end - length : 0), floor), end);
      }
      if (hidden) { // held by a token on the page now (the next redraw may move it again)
        const token = place.token.isConnected && now.contains(place.token) ? place.token : atChar(now, place.s);
        if (token) now.lbpePlace = { token, s: place.s, offset: place.offset };
        now.lbpeHidden = true;
      } else {
        goTo(now, place);
      }
    }
    if (now) watch(now);
    host.lbpeShown = markup;
    host.lbpeParts = next;
  }

  window.lbpePanes = { light, jump, draw };
})();
