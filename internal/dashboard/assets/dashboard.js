// diperf live dashboard: draws the run's per-second aggregates, streamed by
// the controller over server-sent events (/events), with uPlot.
"use strict";
(function () {
  const MAX_POINTS = 3600; // seconds kept in the charts
  const byT = new Map();   // second (Unix s) -> its figures; later updates replace earlier ones
  const $ = (id) => document.getElementById(id);
  const state = { updates: 0, last: null, charts: {} };
  window.diperf = state; // for tests and the curious
  // The token comes in the page's URL and goes with each of its requests:
  // never in a cookie, which the browser would send to every port of the host.
  const token = new URLSearchParams(location.search).get("token") || "";
  const withToken = (path) => path + "?token=" + encodeURIComponent(token);

  let t0 = null; // the run's first second (Unix s): x is seconds since then
  const xLabel = "time since the run started (s)";
  function spec(id, title, series) {
    return { id: id, title: title, xLabel: xLabel, xUnit: "s", x: [], kind: "line", window: MAX_POINTS,
      series: series.map((s) => Object.assign({ values: [] }, s)) };
  }
  const specs = {
    load: spec("live-load", "Throughput and offered load", [
      { label: "throughput", unit: "calls/s", axis: "left" },
      { label: "offered load", unit: "calls in flight", axis: "right" },
    ]),
    health: spec("live-health", "Tester health: the highest of the testers each second", [
      { label: "tester CPU, highest", unit: "%", axis: "left", color: "#9467bd" },
      { label: "host CPU busy, highest", unit: "%", axis: "left", color: "#8c564b" },
      { label: "schedule lag, largest", unit: "ms", axis: "right", color: "#e377c2" },
    ]),
    rt: spec("live-rt", "Response time", [
      { label: "p50", unit: "ms", axis: "left" }, { label: "p90", unit: "ms", axis: "left" },
      { label: "p99", unit: "ms", axis: "left" }, { label: "mean", unit: "ms", axis: "left", dash: true },
    ]),
    err: spec("live-err", "Errors and live testers", [
      { label: "failed", unit: "calls/s", axis: "left", color: "#d62728" },
      { label: "testers running", unit: "testers", axis: "right", color: "#2ca02c" },
    ]),
  };
  for (const k of Object.keys(specs)) state.charts[k] = diperfCharts.build($("chart-" + k), specs[k]);
  const fmt = diperfCharts.fmt;
  // ms writes a time given in ms in the unit that keeps it readable, as
  // the charts' legends do: "250 µs", "12.3 ms", "1.5 s".
  const ms = (v) => diperfCharts.withUnit(v, "ms");

  // columns fills each chart's spec from the seconds known.
  // While the run goes, the seconds still filling (samples come in
  // batches) are left out, as the cards leave them out: they would show
  // a drop at the end of every chart.
  function columns(snap) {
    const now = snap.now_ns / 1e9, ended = snap.state === "ended";
    const ts = Array.from(byT.keys()).filter((t) => ended || t + 2 <= now).sort((a, b) => a - b).slice(-MAX_POINTS);
    const x = ts.map((t) => t - t0);
    const col = (f) => ts.map((t) => f(byT.get(t)));
    const rt = (k) => col((s) => (s.ok > 0 ? s[k] : null));
    const fill = (sp, cols) => { sp.x = x; sp.series.forEach((s, i) => { s.values = cols[i]; }); return sp; };
    return {
      load: fill(specs.load, [col((s) => s.ok), col((s) => s.load)]),
      health: fill(specs.health, [col((s) => (s.health_n ? s.tester_cpu_pct : null)),
        col((s) => (s.host_n ? s.host_busy_pct : null)), col((s) => (s.health_n ? s.lag_max_ms : null))]),
      rt: fill(specs.rt, [rt("p50_ms"), rt("p90_ms"), rt("p99_ms"), rt("mean_ms")]),
      err: fill(specs.err, [col((s) => s.failed), col((s) => s.active)]),
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
    $("c-rt").textContent = s && s.ok ? ms(s.p50_ms) + " / " + ms(s.p99_ms) : "–";
    let ok = 0, failed = 0;
    for (const [k, n] of Object.entries(snap.totals.by_class || {})) {
      if (k === "ok") ok += n; else if (k !== "cancelled") failed += n;
    }
    $("c-calls").textContent = ok + " / " + failed;
    const st = snap.states || {};
    $("c-testers").textContent = (st.running || 0) + " / " + snap.planned;
    $("c-states").textContent = Object.entries(st).map(([k, n]) => n + " " + k).join(", ");
    $("c-clock").textContent = ms(snap.clock.max_abs_offset_ms) + " / " + ms(snap.clock.max_bound_ms);
    $("c-tput").dataset.t = s ? s.t : "";
  }

  function cell(tr, text, cls) {
    const td = document.createElement("td");
    td.textContent = text;
    if (cls) td.className = cls;
    tr.appendChild(td);
  }
  // healthCells adds a tester's latest self-health: CPU %, schedule lag
  // (ms), open descriptors over its limit ("–" where it sent none).
  function healthCells(tr, h) {
    cell(tr, h ? fmt(h.cpu_pct) : "–", "health cpu");
    cell(tr, h ? fmt(h.lag_max_ms) : "–", "health lag");
    cell(tr, h ? h.fds + " / " + h.fd_limit : "–", "health fds");
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
      healthCells(tr, t.health);
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

  // showVerdict appends the run's saturation verdict, in the summary's
  // words, to el (the summary is written with the report; fetched once).
  let verdict = null;
  function showVerdict(el) {
    const add = (v) => { if (v && v.saturation) el.append(" · saturation: " + v.saturation); };
    if (verdict) return add(verdict);
    verdict = {};
    fetch(withToken("api/verdict")).then((res) => (res.ok ? res.json() : null)).then((v) => {
      verdict = v || {};
      add(verdict);
    }).catch(() => {});
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
        a.href = withToken("report");
        a.textContent = "report.html";
        a.id = "report-link";
        r.append("run ended: ", a, " (" + snap.report + ")");
        showVerdict(r);
      } else {
        r.textContent = "run ended";
      }
    }
  }

  function apply(snap) {
    for (const s of snap.seconds || []) {
      if (t0 === null || s.t < t0) t0 = s.t;
      byT.set(s.t, s);
    }
    const cols = columns(snap);
    for (const k of Object.keys(state.charts)) state.charts[k].setSpec(cols[k]);
    status(snap); cards(snap); testers(snap); errors(snap);
    state.last = snap;
    state.updates++;
  }

  const es = new EventSource(withToken("events"));
  es.onmessage = (ev) => {
    try { apply(JSON.parse(ev.data)); } catch (e) { console.error("diperf dashboard: bad update", e); }
  };
  es.onerror = () => {
    if (state.last && state.last.state === "ended") { es.close(); return; }
    const pill = $("state");
    pill.textContent = "disconnected: retrying";
    pill.className = "pill lost";
  };
})();
