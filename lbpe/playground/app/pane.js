// A token pane's `js_on_load` (Gradio gives it `element`, `props` and `watch`): the pane draws
// its HTML itself, through lbpePanes.draw of lbpe/playground/display/panes.js, instead of Gradio's node-by-node
// merge of the old and new markup, which took most of a second at 50,000 characters: a long
// pane comes in runs of tokens (see lbpe.playground.display.render_html), and only the runs that changed
// are replaced.
const host = element.querySelector(".lbpe-host") || element;
const busy = element.querySelector(".lbpe-busy");
const draw = () => {
  const value = typeof props.value === "string" ? props.value : "";
  if (busy) busy.hidden = true;
  if (window.lbpePanes) window.lbpePanes.draw(host, value);  // lbpe/playground/display/panes.js, the page's script
  else if (host.lbpeShown !== value) { host.innerHTML = value; host.lbpeShown = value; host.lbpeParts = null; }
};
draw();
watch("value", draw);
