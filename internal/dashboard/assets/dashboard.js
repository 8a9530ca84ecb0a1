// diperf live dashboard: draws the run's per-second aggregates, streamed by
// the controller over server-sent events (/events), with uPlot.
"use strict";
(function () {
  const MAX_POINTS = 3600; // seconds kept in the charts
  const byT = new Map();   // second (Unix s) -> its figures; later updates replace earlier ones
  const $ = (id) => document.getElementById(id);
  const state = { updates: 0, last: null, charts: {}, zoomed: false };
  window.diperf = state; // for tests and the curious

  const palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"];
  function chart(el, title, series, axes) {
    const opts = {
      title: title, width: el.clientWidth || 900, height: 240,
      cursor: { drag: { x: true, y: false }, sync: { key: "diperf" } },
      scales: { x: { time: true } },
      series: [{ label: "time" }].concat(series.map((s, i) => ({
        label: s.label, scale: s.scale, stroke: s.color || palette[i % palette.length], width: 1.5,
        value: (u, v) => (v == null ? "–" : fmt(v) + " " + s.unit),
      }))),
      axes: [{}].concat(axes.map((a) => ({ scale: a.scale, label: a.label, side: a.side, grid: { show: a.side === 3 } }))),
      hooks: { setSelect: [() => { state.zoomed = true; }] },
    };
    const u = new uPlot(opts, [[]].concat(series.map(() => [])), el);
    el.addEventListener("dblclick", () => { state.zoomed = false; });
    return u;
  }
  function fmt(v) {
    if (Math.abs(v) >= 100) return v.toFixed(0);
    if (Math.abs(v) >= 10) return v.toFixed(1);
    return v.toFixed(2);
  }

  state.charts.load = chart($("chart-load"), "Throughput and offered load", [
    { label: "throughput", unit: "calls/s", scale: "rate" },
    { label: "offered load", unit: "in flight", scale: "load" },
  ], [{ scale: "rate", label: "calls/s", side: 3 }, { scale: "load", label: "calls in flight", side: 1 }]);
  state.charts.rt = chart($("chart-rt"), "Response time", [
    { label: "p50", unit: "ms", scale: "ms" }, { label: "p90", unit: "ms", scale: "ms" },
    { label: "p99", unit: "ms", scale: "ms" }, { label: "mean", unit: "ms", scale: "ms" },
  ], [{ scale: "ms", label: "ms", side: 3 }]);
  state.charts.err = chart($("chart-err"), "Errors and live testers", [
    { label: "failed", unit: "calls/s", scale: "rate", color: "#d62728" },
    { label: "testers running", unit: "", scale: "testers", color: "#2ca02c" },
  ], [{ scale: "rate", label: "calls/s", side: 3 }, { scale: "testers", label: "testers", side: 1 }]);

  function columns() {
    const ts = Array.from(byT.keys()).sort((a, b) => a - b).slice(-MAX_POINTS);
    const col = (f) => ts.map((t) => f(byT.get(t)));
    const rt = (k) => col((s) => (s.ok > 0 ? s[k] : null));
    return {
      load: [ts, col((s) => s.ok), col((s) => s.load)],
      rt: [ts, rt("p50_ms"), rt("p90_ms"), rt("p99_ms"), rt("mean_ms")],
      err: [ts, col((s) => s.failed), col((s) => s.active)],
    };
  }

  // lastComplete is the newest second that ended at least a second ago.
  function lastComplete(snap) {
    const now = snap.now_ns / 1e9;
    let best = null;
    for (const s of byT.values()) if (s.t + 2 <= now && (!best || s.t > best.t)) best = s;
    return best;
  }

  function cards(snap) {
    const s = lastComplete(snap);
    $("c-tput").textContent = s ? fmt(s.ok) : "–";
    $("c-load").textContent = s ? fmt(s.load) : "–";
    $("c-rt").textContent = s && s.ok ? fmt(s.p50_ms) + " / " + fmt(s.p99_ms) : "–";
    let ok = 0, failed = 0;
    for (const [k, n] of Object.entries(snap.totals.by_class || {})) {
      if (k === "ok") ok += n; else if (k !== "cancelled") failed += n;
    }
    $("c-calls").textContent = ok + " / " + failed;
    const st = snap.states || {};
    $("c-testers").textContent = (st.running || 0) + " / " + snap.planned;
    $("c-states").textContent = Object.entries(st).map(([k, n]) => n + " " + k).join(", ");
    $("c-clock").textContent = fmt(snap.clock.max_abs_offset_ms) + " / " + fmt(snap.clock.max_bound_ms);
    $("c-tput").dataset.t = s ? s.t : "";
  }

  function cell(tr, text, cls) {
    const td = document.createElement("td");
    td.textContent = text;
    if (cls) td.className = cls;
    tr.appendChild(td);
  }
  function testers(snap) {
    const body = document.querySelector("#testers tbody");
    const rows = document.createDocumentFragment();
    const now = snap.now_ns;
    for (const t of snap.testers || []) {
      const tr = document.createElement("tr");
      tr.className = t.state;
      tr.dataset.index = t.index;
      cell(tr, t.index); cell(tr, t.id, "l"); cell(tr, t.host, "l"); cell(tr, t.state.toUpperCase(), "l state");
      cell(tr, t.ok); cell(tr, t.failed); cell(tr, t.ok ? fmt(t.mean_ms) : "–");
      cell(tr, t.syncs ? fmt(t.offset_ms) : "–"); cell(tr, t.syncs ? fmt(t.bound_ms) : "–");
      cell(tr, t.last_seen_ns ? ((now - t.last_seen_ns) / 1e9).toFixed(1) : "–");
      cell(tr, t.detail || "", "detail");
      rows.appendChild(tr);
    }
    body.replaceChildren(rows);
    $("omitted").textContent = snap.omitted ? "(" + snap.omitted + " more not listed: failed testers come first)" : "";
  }

  function errors(snap) {
    const box = $("errors");
    if (!snap.errors || !snap.errors.length) return;
    const out = document.createDocumentFragment();
    for (const e of snap.errors) {
      const d = document.createElement("div");
      d.className = "err";
      d.dataset.class = e.class;
      const h = document.createElement("strong");
      h.textContent = e.class + ": " + e.count;
      d.appendChild(h);
      for (const m of e.recent || []) {
        const c = document.createElement("code");
        c.textContent = m;
        d.appendChild(c);
      }
      out.appendChild(d);
    }
    box.replaceChildren(out);
  }

  function status(snap) {
    $("name").textContent = snap.name;
    const pill = $("state");
    pill.textContent = snap.state;
    pill.className = "pill " + snap.state;
    if (snap.state === "ended") {
      const r = $("report");
      r.replaceChildren();
      if (snap.report) {
        const a = document.createElement("a");
        a.href = "report";
        a.textContent = "report.html";
        a.id = "report-link";
        r.append("run ended: ", a, " (" + snap.report + ")");
      } else {
        r.textContent = "run ended";
      }
    }
  }

  function apply(snap) {
    for (const s of snap.seconds || []) byT.set(s.t, s);
    const cols = columns();
    for (const k of Object.keys(state.charts)) state.charts[k].setData(cols[k], !state.zoomed);
    status(snap); cards(snap); testers(snap); errors(snap);
    state.last = snap;
    state.updates++;
  }

  const es = new EventSource("events");
  es.onmessage = (ev) => {
    try { apply(JSON.parse(ev.data)); } catch (e) { console.error("diperf dashboard: bad update", e); }
  };
  es.onerror = () => {
    if (state.last && state.last.state === "ended") { es.close(); return; }
    const pill = $("state");
    pill.textContent = "disconnected: retrying";
    pill.className = "pill lost";
  };
  window.addEventListener("resize", () => {
    for (const u of Object.values(state.charts)) u.setSize({ width: u.root.parentElement.clientWidth, height: 240 });
  });
})();
