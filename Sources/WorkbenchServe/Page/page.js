/* ItemState.script */
"use strict";
const token = "__TOKEN__";
const q = (path) => path + (path.includes("?") ? "&" : "?") + "token=" + token;
const cards = new Map();
const shown = new Set(), nearby = new Set();
let version = 0;

function card(row) {
  let el = cards.get(row.index);
  if (!el) {
    el = document.createElement("section");
    el.className = "item";
    el.dataset.index = row.index;
    el.innerHTML = '<div class="pair"><div class="in"></div><div class="out"></div>' +
      '<input class="cut" type="range" min="0" max="100" value="50" title="drag: before | after"></div>' +
      '<button class="mode" title="side by side, or one over the other with a handle">split</button>' +
      '<div class="name"></div><span class="state"></span> <span class="meta"></span>' +
      '<select class="files" title="the files this item makes: pick one to see it" hidden></select><div class="error"></div>';
    // An item that makes several files (sizes, formats) shows the one picked here.
    el.querySelector(".files").addEventListener("change", (e) => { el.chosen = e.target.value; draw(el.row); });
    // Before/after: side by side, or the output over the input cut where the handle is.
    el.querySelector(".mode").addEventListener("click", () => {
      const split = el.classList.toggle("split");
      el.querySelector(".mode").textContent = split ? "side by side" : "split";
    });
    el.querySelector(".cut").addEventListener("input", (e) => el.querySelector(".pair").style.setProperty("--cut", e.target.value + "%"));
    document.getElementById("items").appendChild(el);
    cards.set(row.index, el);
    visibility.observe(el);
    proximity.observe(el);
  }
  return el;
}

function draw(row) {
  const el = card(row);
  el.row = row;
  el.dataset.state = row.state;
  el.querySelector(".name").textContent = row.name;
  el.querySelector(".name").title = row.source;
  const state = el.querySelector(".state");
  state.className = "state " + row.state;
  state.textContent = ItemState.label(row.state);
  el.querySelector(".meta").textContent = (row.detail || "") + (row.seconds != null && !row.detail ? row.seconds.toFixed(2) + " s" : "")
    + (row.measured && !row.detail ? " · " + row.measured : "");
  el.querySelector(".error").textContent = row.error || "";
  const input = el.querySelector(".in");
  if (!input.firstChild) {
    const img = document.createElement("img");
    img.loading = "lazy";
    img.alt = row.name;
    img.src = row.local ? q("preview/input/" + row.index) : row.source;
    input.appendChild(img);
  }
  const out = el.querySelector(".out");
  if (drafts.has(row.index) && !document.getElementById("showSaved").checked) return;
  const files = el.querySelector(".files");
  files.hidden = row.outputs.length < 2 || !ItemState.showsOutputs(row.state);
  if (files.dataset.list !== row.outputs.join("\n")) {
    files.dataset.list = row.outputs.join("\n");
    files.innerHTML = "";
    for (const name of row.outputs) { const o = document.createElement("option"); o.value = name; o.textContent = name; files.appendChild(o); }
  }
  const first = row.outputs.includes(el.chosen) ? el.chosen : row.outputs[0];
  if (first) files.value = first;
  const key = first ? first + "#" + row.state + (row.seconds || "") : "";
  if (out.dataset.key !== key) {
    out.dataset.key = key;
    out.innerHTML = "";
    if (first && ItemState.showsOutputs(row.state)) {
      const img = document.createElement("img");
      img.alt = first;
      img.title = row.outputs.join("\n");
      img.src = q("preview/output/" + first.split("/").map(encodeURIComponent).join("/") + "?v=" + (++version));
      out.appendChild(img);
    }
  }
}

function totals(s) {
  document.getElementById("preset").textContent = s.preset.file + (s.preset.ok ? "" : " (not valid)");
  document.getElementById("errors").textContent = s.preset.errors.join("\n");
  document.getElementById("graph").textContent = s.preset.graph;
  const all = cards.size;
  document.getElementById("summary").textContent = `${s.done} done · ${s.upToDate} up to date · ${s.failed} failed · ${all} items` + (s.itemsPerSecond > 0 ? ` · ${s.itemsPerSecond.toFixed(1)} made/s while running` : "");
  document.getElementById("queues").textContent = s.queues.map(x => `${x.name} ${x.running} running${x.waiting ? ", " + x.waiting + " waiting" : ""}`).join(" · ");
}

// What is on screen runs first; what is just below or above runs next.
let pending = null;
function report() {
  if (pending) return;
  pending = setTimeout(() => {
    pending = null;
    const sorted = (set) => Array.from(set).sort((a, b) => a - b);
    fetch(q("viewport"), { method: "POST", body: JSON.stringify({ visible: sorted(shown), near: sorted(nearby) }) });
  }, 100);
}
const visibility = new IntersectionObserver((entries) => {
  for (const e of entries) { const i = Number(e.target.dataset.index); if (e.isIntersecting) shown.add(i); else shown.delete(i); }
  report();
});
const proximity = new IntersectionObserver((entries) => {
  for (const e of entries) { const i = Number(e.target.dataset.index); if (e.isIntersecting) nearby.add(i); else nearby.delete(i); }
  report();
}, { rootMargin: "100% 0px 100% 0px" });

// ---- Controls: one per declared parameter; the latest value wins ----
// Undo and redo walk the page's changes; a drag counts once per value it passed.
const history = [], future = [];
function buttons() {
  document.getElementById("undo").disabled = history.length === 0;
  document.getElementById("redo").disabled = future.length === 0;
}
async function replay(change, value) {
  await fetch(q("parameter"), { method: "POST", body: JSON.stringify({ node: change.node, key: change.key, value: JSON.stringify(value) }) });
  await loadControls();
  buttons();
}
function undo() {
  // A drag's steps on one control undo together, back to where the drag began.
  const change = history.pop();
  if (!change) return;
  let from = change.from;
  future.push(change);
  while (history.length && history[history.length - 1].node === change.node && history[history.length - 1].key === change.key) {
    const earlier = history.pop(); future.push(earlier); from = earlier.from;
  }
  replay(change, from);
}
function redo() {
  const change = future.pop();
  if (!change) return;
  history.push(change);
  let to = change.to;
  while (future.length && future[future.length - 1].node === change.node && future[future.length - 1].key === change.key) {
    const later = future.pop(); history.push(later); to = later.to;
  }
  replay(change, to);
}
document.getElementById("undo").addEventListener("click", undo);
document.getElementById("redo").addEventListener("click", redo);
document.addEventListener("keydown", (e) => {
  if (!(e.ctrlKey || e.metaKey) || e.key.toLowerCase() !== "z" || e.target.tagName === "INPUT" && e.target.type === "text") return;
  e.preventDefault();
  if (e.shiftKey) redo(); else undo();
});
const drafts = new Map();      // item index → generation of its newest preview
let sending = false, waiting = null;
function setParameter(node, key, value, problem) {
  waiting = { node, key, value: JSON.stringify(value), problem };
  if (!sending) sendNext();
}
async function sendNext() {
  const change = waiting;
  waiting = null;
  if (!change) { sending = false; return; }
  sending = true;
  const response = await fetch(q("parameter"), { method: "POST", body: JSON.stringify({ node: change.node, key: change.key, value: change.value }) });
  change.problem.textContent = response.ok ? "" : await response.text();
  change.problem.parentElement.classList.toggle("changed", response.ok);
  sendNext();
}
// A slider over the useful part of the range (the server's `slider`): linear, or for a
// factor linear up to 1 in the left half and geometric after it. Positions run 0…1000.
function track(s, integer) {
  const round = (v) => integer ? Math.round(v) : Number(v.toPrecision(3));
  if (s.centre != null && s.high > s.centre) {
    return {
      value: (p) => round(p <= 500 ? s.low + (s.centre - s.low) * p / 500 : s.centre * Math.pow(s.high / s.centre, (p - 500) / 500)),
      position: (v) => v <= s.centre ? 500 * (v - s.low) / (s.centre - s.low) : 500 + 500 * Math.log(v / s.centre) / Math.log(s.high / s.centre),
    };
  }
  return { value: (p) => round(s.low + (s.high - s.low) * p / 1000), position: (v) => 1000 * (v - s.low) / (s.high - s.low) };
}
function number(c, value, integer) {
  const wrap = document.createDocumentFragment();
  const field = document.createElement("input");
  field.type = "number";
  // Unset: the field is empty and says what applies; the slider waits at that value, dimmed.
  field.value = value == null ? "" : value;
  field.placeholder = c.unset != null ? `${c.unset}` : "auto";
  field.title = value == null ? (c.unset != null ? `not set: ${c.unset}, the default, applies` : "not set: the op decides") : "";
  field.step = integer ? 1 : "any";
  if (c.min != null) field.min = c.min;
  if (c.max != null) field.max = c.max;
  let slider = null, scale = null;
  if (c.slider) {
    scale = track(c.slider, integer);
    slider = document.createElement("input");
    slider.type = "range";
    slider.min = 0; slider.max = 1000; slider.step = 1;
    const shown = value != null ? value : (c.unset != null ? c.unset : c.slider.low);
    slider.value = Math.max(0, Math.min(1000, scale.position(shown)));
    slider.classList.toggle("unset", value == null);
    slider.title = `${c.slider.low} … ${c.slider.high} on the slider` + (c.slider.centre != null ? ", 1 in the middle" : "") + "; type any value the range allows";
    wrap.appendChild(slider);
  }
  wrap.appendChild(field);
  return [wrap, (send) => {
    if (slider) slider.addEventListener("input", () => {
      const v = scale.value(Number(slider.value));
      field.value = v; slider.classList.remove("unset"); send(v);
    });
    field.addEventListener("input", () => {
      if (field.value === "") return;
      if (slider) { slider.value = Math.max(0, Math.min(1000, scale.position(Number(field.value)))); slider.classList.remove("unset"); }
      send(Number(field.value));
    });
  }];
}
function hex(list) { return "#" + list.slice(0, 3).map(v => Math.max(0, Math.min(255, Math.round(v))).toString(16).padStart(2, "0")).join(""); }
function control(panel, c) {
  const el = document.createElement("div");
  el.className = "control" + (c.changed ? " changed" : "");
  // A parameter written as a repetition variable ("{w}") is set one copy at a time.
  const node = c.node || panel.node;
  el.dataset.node = node;
  el.dataset.key = c.name;
  const label = document.createElement("label");
  // The declared range where the slider shows all of it; a huge one is the field's to enforce.
  const whole = c.slider && c.slider.low === c.min && c.slider.high === c.max;
  label.textContent = c.name + (c.copy ? ` · for ${c.copy}` : "") + (whole ? ` (${c.min} … ${c.max})` : "");
  label.title = c.summary;
  el.appendChild(label);
  const problem = document.createElement("div");
  problem.className = "problem";
  let last = c.value;
  const send = (value) => {
    history.push({ node, key: c.name, from: last, to: value });
    future.length = 0;
    last = value;
    buttons();
    setParameter(node, c.name, value, problem);
  };
  let input, wire;
  if (c.control === "slider") {
    [input, wire] = number(c, c.value, c.type === "integer");
  } else if (c.control === "toggle") {
    input = document.createElement("input"); input.type = "checkbox"; input.checked = !!c.value;
    wire = (s) => input.addEventListener("change", () => s(input.checked));
  } else if (c.control === "menu") {
    input = document.createElement("select");
    for (const choice of c.choices) { const o = document.createElement("option"); o.textContent = choice; input.appendChild(o); }
    if (c.value == null) { const o = document.createElement("option"); o.value = ""; o.textContent = c.unset != null ? `default ${c.unset}` : "not set"; input.prepend(o); }
    input.value = c.value == null ? "" : c.value;
    wire = (s) => input.addEventListener("change", () => { if (input.value !== "") s(input.value); });
  } else if (c.control === "colour" && Array.isArray(c.value) && c.value.length === 3 && c.value.every(v => v >= 0 && v <= 255)) {
    input = document.createElement("input"); input.type = "color"; input.value = hex(c.value);
    wire = (s) => input.addEventListener("input", () => { const v = input.value; s([1, 3, 5].map(i => parseInt(v.substr(i, 2), 16))); });
  } else if (c.control === "grid" && Array.isArray(c.value) && c.value.every(Array.isArray)) {
    input = document.createElement("div"); input.className = "grid";
    input.style.gridTemplateColumns = `repeat(${c.value[0].length}, 1fr)`;
    const cells = c.value.map(row => row.map(v => { const f = document.createElement("input"); f.type = "number"; f.step = "any"; f.value = v; input.appendChild(f); return f; }));
    wire = (s) => cells.flat().forEach(f => f.addEventListener("input", () => s(cells.map(row => row.map(x => Number(x.value))))));
  } else {
    input = document.createElement("input"); input.type = "text";
    input.value = c.value == null ? "" : typeof c.value === "string" ? c.value : JSON.stringify(c.value);
    input.placeholder = c.unset != null ? `default ${c.unset}` : "not set: the op decides";
    input.title = input.placeholder;
    wire = (s) => input.addEventListener("change", () => {
      if (c.type === "string") { s(input.value); return; }
      try { s(JSON.parse(input.value)); } catch (e) { problem.textContent = "Not JSON: " + e.message; }
    });
  }
  el.appendChild(input);
  wire(send);
  el.appendChild(problem);
  return el;
}
fetch(q("draft")).then(r => r.json()).then(d => {
  document.getElementById("tuneNote").textContent = `Moving a control previews it on the cards on screen, run on copies of the photos ${d.previewSize} px on their longest side; the files are made when you save.`;
});
async function loadControls() {
  const response = await fetch(q("controls"));
  if (!response.ok) return;
  const panels = await response.json();
  const box = document.getElementById("controls");
  box.innerHTML = "";
  for (const panel of panels) {
    const h = document.createElement("h2");
    h.innerHTML = "";
    h.textContent = panel.node + " ";
    const small = document.createElement("small");
    small.textContent = panel.op + (panel.copies.length ? ` · ${panel.copies.length} copies (foreach)` : "");
    small.title = panel.copies.length ? `${panel.copies.join(", ")}: a control changes every copy, unless its label names a value ("for w = 480")` : "";
    h.appendChild(small);
    box.appendChild(h);
    for (const c of panel.controls) box.appendChild(control(panel, c));
  }
  document.body.classList.toggle("tuning", panels.length > 0);
}
function showPreview(index) {
  const el = cards.get(index);
  if (!el) return;
  const out = el.querySelector(".out");
  const saved = document.getElementById("showSaved").checked;
  if (saved || !drafts.has(index)) { out.dataset.key = ""; const row = el.row; if (row) draw(row); return; }
  let img = out.querySelector("img.draft");
  if (!img) { out.innerHTML = ""; img = document.createElement("img"); img.className = "draft"; out.appendChild(img); }
  img.src = q("preview/draft/" + index + "?g=" + drafts.get(index));
  out.dataset.key = "draft";
}
// Values still on their way to the server (typing is one request per key) are saved too.
function idle() { return new Promise(done => { const check = () => (sending || waiting) ? setTimeout(check, 20) : done(); check(); }); }
document.getElementById("save").addEventListener("click", async () => {
  await idle();
  const response = await fetch(q("save"), { method: "POST" });
  if (!response.ok) document.getElementById("draftNote").textContent = await response.text();
});
document.getElementById("revert").addEventListener("click", async () => {
  await fetch(q("revert"), { method: "POST" });
  history.length = 0; future.length = 0; buttons();
  const shown = Array.from(drafts.keys());
  drafts.clear();
  shown.forEach(showPreview);
  loadControls();
});
document.getElementById("showSaved").addEventListener("change", () => Array.from(drafts.keys()).forEach(showPreview));

const events = new EventSource(q("events"));
events.addEventListener("preview", (e) => {
  const p = JSON.parse(e.data);
  if ((drafts.get(p.index) || 0) > p.generation) return;
  drafts.set(p.index, p.generation);
  showPreview(p.index);
});
events.addEventListener("scaled", (e) => {
  const scaled = JSON.parse(e.data);
  document.getElementById("scaledNote").textContent = scaled.length
    ? "Sizes in pixels scaled to the preview copies: " + scaled.map(s => `${s.node}.${s.key} ${s.from} → ${s.to}`).join(", ") + "."
    : "";
});
events.addEventListener("draft", (e) => {
  const d = JSON.parse(e.data);
  document.getElementById("save").disabled = d.changes === 0;
  document.getElementById("revert").disabled = d.changes === 0;
  document.getElementById("save").textContent = d.changes ? `Save (${d.changes})` : "Save";
  document.getElementById("draftNote").textContent = d.note || "";
  if (d.changes === 0) { const shown = Array.from(drafts.keys()); drafts.clear(); shown.forEach(showPreview); }
});
events.addEventListener("snapshot", (e) => {
  const s = JSON.parse(e.data);
  const keep = new Set(s.rows.map(r => r.index));
  for (const [i, el] of cards) if (!keep.has(i)) { el.remove(); cards.delete(i); shown.delete(i); nearby.delete(i); }
  s.rows.forEach(draw);
  totals(s);
  report();
  loadControls();
});
events.addEventListener("rows", (e) => JSON.parse(e.data).forEach(draw));
events.addEventListener("totals", (e) => totals(JSON.parse(e.data)));
// Something the server could not do that the page would not otherwise show (a manifest not written).
events.addEventListener("notice", (e) => { document.getElementById("errors").textContent = JSON.parse(e.data).text; });
