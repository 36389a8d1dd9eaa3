// The attention view's controls: keys, pointer and clicks change the state and redraw at once, timed on the
// page's clock; the address bar follows a moment later; Enter commits; an exception becomes a plain message.
// Inlined after attention_view.js by view.py (one ES module), so draw() and the core functions are in scope.
function cellUnder(v, event) {
  const box = v.grid.getBoundingClientRect();
  const n = v.zoom ? v.state.size : Math.max(v.meta.rows, v.meta.cols);
  const r = Math.floor(((event.clientY - box.top) / box.height) * n), c = Math.floor(((event.clientX - box.left) / box.width) * n);
  const [i, j] = v.zoom ? [v.state.window + r, v.state.windowKey + c] : [r, c];
  return i >= 0 && j >= 0 && i < v.meta.rows && j < v.meta.cols ? [i, j] : null;
}

function record(v, event, name, t0) {
  const t1 = performance.now();
  v.timings.push({ control: name, redraw: t1 - t0, fromEvent: t1 - event.timeStamp });
  if (v.timings.length > 2000) v.timings.shift();
}

function apply(v, event, name, change) {
  const t0 = performance.now();
  v.state = change(v.state);
  draw(v);
  record(v, event, name, t0);
  writeUrl(v);
}

const KEYS = { PageUp: ["frame", -1], PageDown: ["frame", 1], ArrowUp: ["query", -1, "window"], ArrowDown: ["query", 1, "window"], ArrowLeft: ["key", -1, "window_key"], ArrowRight: ["key", 1, "window_key"], "+": ["window_size", 1], "=": ["window_size", 1], "-": ["window_size", -1] };

/** Python learns the selection (one rerun): Enter or the button, never a plain move. */
function commit(v) {
  const s = v.state;
  const frame = {};
  if (v.meta.frames) frameParts(v.meta.frames, s.frame).forEach((n, d) => { frame[v.meta.frames.dims[d].param] = v.meta.frames.dims[d].values[n]; });
  v.setStateValue?.("selection", { query: s.query + 1, key: s.key + 1, window: s.window + 1, window_key: s.windowKey + 1, window_size: s.size, ...frame });
}

/** The address bar follows the view a moment after a move (and after a rerun, which rewrites the query string). */
function writeUrl(v) {
  clearTimeout(v.urlTimer);
  v.urlTimer = setTimeout(() => history.replaceState(history.state, "", urlWith(location.href, v.state, v.zoom, v.meta.frames, v.meta.url_selection !== false)), URL_DELAY_MS);
}

function listen(v) {
  const guard = (handler) => (event) => { try { handler(event); } catch (error) { fail(v.root.parentNode, error); } };
  for (const [name, { input }] of Object.entries(v.sliders)) {
    input.addEventListener("input", guard((event) => apply(v, event, name, (s) => fromSlider(s, v.meta, name, Number(input.value)))));
  }
  v.send.addEventListener("click", guard(() => commit(v)));
  v.root.addEventListener("keydown", guard((event) => {
    if (event.key === "Enter") {
      commit(v);
      return;
    }
    if (event.target !== v.root) return; // a slider or the button handles its own keys
    const entry = KEYS[event.key];
    if (!entry) return;
    event.preventDefault();
    const [plain, by, shifted] = entry;
    const action = event.shiftKey && shifted ? shifted : plain;
    if (!v.zoom && action.startsWith("window")) return;
    apply(v, event, action, (s) => move(s, v.meta, action, by));
  }));
  v.grid.addEventListener("mousemove", guard((event) => {
    const t0 = performance.now(), cell = cellUnder(v, event);
    v.hover.textContent = cell ? `Under the pointer: query ${label(v, cell[0])}, key ${label(v, cell[1])}: ${valueText(v, cell[0], cell[1])}` : "";
    record(v, event, "hover", t0);
  }));
  v.grid.addEventListener("mouseleave", () => { v.hover.textContent = ""; });
  v.grid.addEventListener("click", guard((event) => {
    const cell = cellUnder(v, event);
    v.root.focus();
    if (cell) apply(v, event, "click", (s) => move({ ...s, query: cell[0], key: cell[1] }, v.meta, "query", 0));
  }));
  v.overviewBox.addEventListener("click", guard((event) => {
    const box = v.overview.getBoundingClientRect();
    const i = Math.floor(((event.clientY - box.top) / box.height) * v.meta.rows), j = Math.floor(((event.clientX - box.left) / box.width) * v.meta.cols);
    v.root.focus();
    apply(v, event, "overview", (s) => ({ ...s, window: clampWindow(i - (s.size >> 1), s.size, v.meta.rows), windowKey: clampWindow(j - (s.size >> 1), s.size, v.meta.cols) }));
  }));
}

function fail(parent, error) {
  const box = document.createElement("p");
  box.className = "av-error";
  box.setAttribute("role", "alert");
  box.textContent = `The attention view could not be drawn: ${error && error.message ? error.message : error}`;
  parent.querySelectorAll(".av, .av-error").forEach((old) => old.remove()); // keep Streamlit's <style>
  parent.appendChild(box);
  VIEWS.delete(parent);
}
