/// The live workbench's one page: plain HTML, CSS and JavaScript, no build step. Kept in the
/// executable itself (not a resource bundle, which a copied binary would lose).
enum Page {
    static func html(token: String) -> String {
        template.replacingOccurrences(of: "__TOKEN__", with: token)
    }

    private static let template = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>FilterWorkbench</title>
    <style>
    :root { --bg: #16181d; --card: #20232b; --text: #e6e6e6; --dim: #9aa0ab; --ok: #5cb85c; --bad: #e5534b; --run: #d4a72c; --same: #6f9fd8; }
    * { box-sizing: border-box; }
    body { margin: 0; font: 14px/1.4 system-ui, sans-serif; background: var(--bg); color: var(--text); }
    header { position: sticky; top: 0; z-index: 2; background: #101216ee; padding: 10px 16px; border-bottom: 1px solid #2c3038; }
    header h1 { font-size: 16px; margin: 0 8px 0 0; display: inline; }
    #summary, #queues { color: var(--dim); margin-left: 12px; }
    #errors { color: var(--bad); white-space: pre-wrap; font-family: ui-monospace, monospace; margin: 6px 0 0; }
    details { margin-top: 4px; color: var(--dim); }
    details pre { margin: 4px 0; font-size: 12px; }
    main { display: grid; grid-template-columns: repeat(auto-fill, minmax(340px, 1fr)); gap: 12px; padding: 16px; }
    .item { background: var(--card); border-radius: 8px; padding: 8px; min-height: 230px; }
    .pair { display: grid; grid-template-columns: 1fr 1fr; gap: 6px; height: 160px; }
    .pair div { background: #111; border-radius: 4px; display: flex; align-items: center; justify-content: center; overflow: hidden; }
    .pair img { max-width: 100%; max-height: 160px; }
    .name { font-weight: 600; margin-top: 6px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .state { display: inline-block; padding: 1px 6px; border-radius: 10px; font-size: 12px; background: #333; }
    .state.done { background: var(--ok); color: #000; }
    .state.upToDate { background: var(--same); color: #000; }
    .state.failed { background: var(--bad); color: #fff; }
    .state.reading, .state.downloading, .state.decoding, .state.filtering, .state.encoding, .state.writing { background: var(--run); color: #000; }
    .meta { color: var(--dim); font-size: 12px; }
    .error { color: var(--bad); font-size: 12px; white-space: pre-wrap; }
    </style>
    </head>
    <body>
    <header>
      <h1>FilterWorkbench</h1><span id="preset"></span><span id="summary"></span><span id="queues"></span>
      <div id="errors"></div>
      <details><summary>graph</summary><pre id="graph"></pre></details>
    </header>
    <main id="items"></main>
    <script>
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
        el.innerHTML = '<div class="pair"><div class="in"></div><div class="out"></div></div>' +
          '<div class="name"></div><span class="state"></span> <span class="meta"></span><div class="error"></div>';
        document.getElementById("items").appendChild(el);
        cards.set(row.index, el);
        visibility.observe(el);
        proximity.observe(el);
      }
      return el;
    }

    function draw(row) {
      const el = card(row);
      el.dataset.state = row.state;
      el.querySelector(".name").textContent = row.name;
      el.querySelector(".name").title = row.source;
      const state = el.querySelector(".state");
      state.className = "state " + row.state;
      state.textContent = row.state === "upToDate" ? "up to date" : row.state;
      el.querySelector(".meta").textContent = (row.detail || "") + (row.seconds != null && !row.detail ? row.seconds.toFixed(2) + " s" : "");
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
      const first = row.outputs[0];
      const key = first ? first + "#" + row.state + (row.seconds || "") : "";
      if (out.dataset.key !== key) {
        out.dataset.key = key;
        out.innerHTML = "";
        if (first && (row.state === "done" || row.state === "upToDate" || row.state === "stale")) {
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
      document.getElementById("summary").textContent = `${s.done} done · ${s.upToDate} up to date · ${s.failed} failed · ${all} items · ${s.itemsPerSecond.toFixed(1)} items/s`;
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

    const events = new EventSource(q("events"));
    events.addEventListener("snapshot", (e) => {
      const s = JSON.parse(e.data);
      const keep = new Set(s.rows.map(r => r.index));
      for (const [i, el] of cards) if (!keep.has(i)) { el.remove(); cards.delete(i); shown.delete(i); nearby.delete(i); }
      s.rows.forEach(draw);
      totals(s);
      report();
    });
    events.addEventListener("rows", (e) => JSON.parse(e.data).forEach(draw));
    events.addEventListener("totals", (e) => totals(JSON.parse(e.data)));
    </script>
    </body>
    </html>
    """#
}
