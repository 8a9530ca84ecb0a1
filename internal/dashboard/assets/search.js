// diperf live dashboard: the capacity search's panel. It asks /api/search
// every second while the run goes (once more after it ended) and shows
// the panel only when the run is a search: the step under way or last
// decided, the bracket, the steps so far and, once the run ended, the
// verdict in words. A last step whose decision is empty is the step
// under way.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const fmt = diperfCharts.fmt;
  const token = new URLSearchParams(location.search).get("token") || "";
  const url = "api/search?token=" + encodeURIComponent(token);
  const state = { updates: 0, last: null, chart: null };
  window.diperfSearch = state; // for tests and the curious

  // bracket is [lo, hi] after the steps: lo the highest load met, hi the
  // lowest that failed (a load met above a failed one does not count).
  function bracket(steps) {
    let lo = null, hi = null;
    const los = [], his = [];
    for (const s of steps) {
      if (s.decision === "meets" && (hi === null || s.load < hi) && (lo === null || s.load > lo)) lo = s.load;
      if (s.decision === "fails" && (hi === null || s.load < hi)) hi = s.load;
      los.push(lo); his.push(hi);
    }
    return { lo: lo, hi: hi, los: los, his: his };
  }

  function chart(steps, b) {
    const spec = { id: "live-search", title: "Capacity search: load per step and the bracket", xLabel: "step",
      x: steps.map((s) => s.step), kind: "line", height: 260, series: [
        { label: "load of the step", unit: "load", axis: "left", color: "#1f77b4", dash: true, width: 2,
          axisLabel: "load (calls/s, or clients)", values: steps.map((s) => s.load) },
        { label: "lo: highest load met", unit: "load", axis: "left", color: "#2ca02c", width: 2.5, values: b.los },
        { label: "hi: lowest load failed", unit: "load", axis: "left", color: "#d62728", width: 2.5, values: b.his },
      ] };
    if (!state.chart) state.chart = diperfCharts.build($("chart-search"), spec);
    else state.chart.setSpec(spec);
  }

  function cell(tr, text, cls) {
    const td = document.createElement("td");
    td.textContent = text;
    if (cls) td.className = cls;
    tr.appendChild(td);
  }

  function table(steps) {
    const rows = document.createDocumentFragment();
    for (const s of steps) {
      const tr = document.createElement("tr");
      tr.dataset.step = s.step;
      cell(tr, s.step); cell(tr, fmt(s.load));
      cell(tr, s.seconds + " (warm-up " + s.warmup_s + (s.rest_s ? ", rest " + s.rest_s : "") + ")");
      cell(tr, s.calls); cell(tr, fmt(s.throughput));
      const d = s.decision || "under way";
      cell(tr, d + (s.weak ? " (weak)" : "") + (s.binding ? ": " + s.binding : ""), "l decision " + (s.decision || "running"));
      cell(tr, s.why || "", "l");
      rows.appendChild(tr);
    }
    document.querySelector("#search-steps tbody").replaceChildren(rows);
  }

  function show(res, ended) {
    $("search").hidden = false;
    const all = res.steps || [];
    const decided = all.filter((s) => s.decision);
    const cur = all.length ? all[all.length - 1] : null;
    $("s-step").textContent = cur ? String(cur.step) : "–";
    $("s-step-u").textContent = decided.length + " decided" + (cur && !cur.decision ? ", this one under way" : "");
    $("s-load").textContent = cur ? fmt(cur.load) : "–";
    $("s-load-u").textContent = cur ? (cur.decision || "under way") : "";
    const b = bracket(decided);
    $("s-bracket").textContent = "[" + (b.lo === null ? "none" : fmt(b.lo)) + ", " + (b.hi === null ? "none" : fmt(b.hi)) + "]";
    $("s-verdict").textContent = ended ? res.verdict : "searching";
    $("s-why").textContent = ended ? res.why : "";
    chart(decided, b);
    table(all);
  }

  let done = false;
  function poll() {
    const run = window.diperf && window.diperf.last;
    const ended = !!run && run.state === "ended";
    fetch(url).then((r) => (r.ok ? r.json() : null)).then((v) => {
      if (v && v.search) show(v, ended);
      state.last = v;
      state.updates++;
      if (ended) done = true;
    }).catch(() => {}).finally(() => { if (!done) setTimeout(poll, 1000); });
  }
  poll();
})();
