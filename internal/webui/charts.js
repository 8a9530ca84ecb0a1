/*
 * diperf charts: builds a uPlot chart from a JSON chart spec. Shared by the
 * live dashboard and report.html; plain ES2017, no build step, no network.
 * Needs window.uPlot (webui.UPlotJS) loaded first. Defines window.diperfCharts.
 *
 * A spec:
 *   {
 *     id:     "graph-a-timeline",          // element id stem
 *     title:  "Offered load ...",
 *     xLabel: "time since the first tester started (s)",
 *     xUnit:  "s",                          // shown with the x value in the legend
 *     x:      [0, 1, 2, ...],               // ascending
 *     kind:   "line" | "points" | "band",   // default for every series
 *     series: [{label, unit, axis: "left"|"right", color, values: [...],
 *               kind?, dash?: true, width?, hidden?: true, spanGaps?: true,
 *               axisLabel?: "response time (ms)"}],  // names the series' y axis
 *     bands:  [{upper: i, lower: j}],       // shade between series i and j (indexes into series)
 *     xTicks: {values: [...], labels: [...]}, // optional fixed ticks of the x axis
 *     xNames: [...],                        // optional: the legend shows xNames[i] for x[i] (static charts)
 *     window: 600                           // points push keeps (default 600)
 *   }
 * null in values is a gap. Series of the same unit and axis side share a y
 * scale, with one axis each, so that units differing give two y axes. A
 * "band" series is drawn as a thin line, shaded down to the next series of
 * its scale when no bands are given.
 *
 * Ticks have the decimals their step needs and M, G or T from a million up
 * (tick, the same labels as internal/human.Tick on the report's SVG); each
 * y axis is as wide as its widest label, and the x axis keeps its labels
 * apart and inside the canvas.
 *
 * Interaction is uPlot's own, configured here: hovering shows every series'
 * value with its unit in the legend; dragging over the plot zooms on x and a
 * double click resets; clicking a legend entry hides or shows its series.
 *
 * API:
 *   diperfCharts.build(el, spec) -> chart  draw spec into element el
 *   chart.push(x, ys)      append one point (ys: one value per series, in
 *                          order), keeping the last spec.window points; the
 *                          x scale follows unless the user has zoomed
 *   chart.setSpec(spec)    replace every value (same series)
 *   chart.u                the uPlot instance
 *   diperfCharts.renderAll(root) for each element of class "dp-chart" with
 *                          data-chart="ID", reads the spec from
 *                          the script element of type application/json
 *                          and id "data-ID",
 *                          builds it, and marks the element's <figure>
 *                          "dp-live" (the report's CSS then hides the SVG
 *                          fallback). Returns the charts by id.
 */
(function () {
  "use strict";

  // Tableau 10, the palette of the report's SVG graphs.
  const palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];

  // fmt prints v with about four significant digits, never in scientific
  // notation: a million and more with a k, M, G or T suffix ("1.5M"), less
  // than 0.001 in plain decimals ("0.000123").
  function fmt(v) {
    if (v == null || !isFinite(v)) return "–";
    const a = Math.abs(v);
    if (a === 0) return "0";
    if (a < 1e-3) return small.format(v);
    if (a >= 1e6) {
      const k = Math.min(4, Math.floor(Math.log10(a) / 3)), x = v / Math.pow(1000, k);
      return (Math.abs(x) < 1e6 ? fmt(x) : whole.format(x)) + ["", "k", "M", "G", "T"][k];
    }
    const digits = a >= 1000 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : 3;
    const t = v.toFixed(digits);
    return digits ? t.replace(/\.?0+$/, "") : t; // the zeros after a point only: 1200 stays 1200
  }

  // tick prints an axis tick v of ticks incr apart with the decimals incr
  // needs, never an exponent: from a million up in M, G or T ("2.5M",
  // "1.23456790G"), as internal/human.Tick writes the report's SVG ticks.
  function tick(v, incr) {
    if (v == null || !isFinite(v)) return "";
    if (v === 0) return "0";
    const a = Math.abs(v);
    const k = a >= 1e6 ? Math.min(4, Math.floor(Math.log10(a) / 3)) : 0, scale = Math.pow(1000, k);
    return fixed(stepDecimals(incr / scale)).format(v / scale) + ["", "k", "M", "G", "T"][k];
  }

  // ticks is an axis' values option: its ticks, as tick writes them.
  function ticks(u, splits, i, space, incr) {
    return splits.map(function (v) { return tick(v, incr); });
  }

  // stepDecimals is how many digits after the point tell ticks step apart:
  // those of step itself (0.25 needs 2, 20 none), at most 3 more than its
  // first significant digit asks.
  function stepDecimals(step) {
    if (!(step > 0) || !isFinite(step)) return 0;
    const first = Math.max(0, Math.ceil(-Math.log10(step) - 1e-9));
    let d = first;
    for (; d < first + 3; d++) {
      const x = step * Math.pow(10, d);
      if (Math.abs(x - Math.round(x)) <= 1e-6 * x) break;
    }
    return Math.min(d, 100); // Intl's limit
  }

  // fixed returns a plain format with d decimals (never an exponent).
  const fixedFormats = {};
  function fixed(d) {
    if (!fixedFormats[d]) {
      fixedFormats[d] = new Intl.NumberFormat("en-US",
        {useGrouping: false, minimumFractionDigits: d, maximumFractionDigits: d});
    }
    return fixedFormats[d];
  }

  // textWidth is the width in CSS pixels of label v in axis a's font.
  function textWidth(u, a, v) {
    u.ctx.font = a.font[0]; // scaled by the device pixel ratio
    return u.ctx.measureText(String(v)).width / uPlot.pxRatio;
  }

  // axisSize is the width of y axis i in CSS pixels: its tick, the gap and
  // its widest label as the canvas draws it, so that no label is cut
  // ("1200" read "12" at a fixed width). uPlot asks again whenever the
  // labels change; before the first labels, 60.
  function axisSize(u, values, i) {
    const a = u.axes[i];
    if (!values) return 60;
    let w = 0;
    values.forEach(function (v) { if (v != null) w = Math.max(w, textWidth(u, a, v)); });
    return Math.ceil((a.ticks.show ? a.ticks.size : 0) + a.gap + w) + 2;
  }

  // xSpace is the least room between the x axis' ticks: uPlot's 50 px, or
  // its widest label so far and 12 px, so that labels never overlap.
  function xSpace(u) {
    const x = u.axes[0];
    let w = 0;
    (x._values || []).forEach(function (v) { if (v != null) w = Math.max(w, textWidth(u, x, v)); });
    return Math.max(50, Math.ceil(w + 12));
  }

  // sidePad is the padding of the right (side 1) or left (3) edge: enough
  // for half the x axis' last (first) label, centred on the plot's edge at
  // most, beyond the y axes on that side; at least uPlot's own (25 px
  // without a y axis there, else 0).
  function sidePad(u, side, sides) {
    const auto = sides[side] ? 0 : 25, x = u.axes[0], vals = x._values;
    if (!vals || !vals.length) return auto;
    const half = textWidth(u, x, vals[side === 1 ? vals.length - 1 : 0]) / 2;
    let room = 0;
    u.axes.forEach(function (a, i) { if (i > 0 && a.side === side && a._size) room += a._size; });
    return Math.max(auto, Math.ceil(half + 2 - room));
  }

  // Plain decimals, never an exponent: three significant digits, or none
  // after the point.
  const small = new Intl.NumberFormat("en-US", {maximumSignificantDigits: 3, useGrouping: false});
  const whole = new Intl.NumberFormat("en-US", {maximumFractionDigits: 0, useGrouping: false});

  // Unit families (internal/human's): a value in one of their units is
  // shown in the unit that keeps it readable ("1.5 s", not "1500 ms").
  const families = [
    [["ns", 1e-9], ["µs", 1e-6], ["ms", 1e-3], ["s", 1]],
    [["bit/s", 1], ["kbit/s", 1e3], ["Mbit/s", 1e6], ["Gbit/s", 1e9], ["Tbit/s", 1e12]],
    [["B", 1], ["kB", 1e3], ["MB", 1e6], ["GB", 1e9], ["TB", 1e12]],
    [["B/s", 1], ["kB/s", 1e3], ["MB/s", 1e6], ["GB/s", 1e9], ["TB/s", 1e12]],
  ];

  // withUnit prints v of unit, scaled within the unit's family.
  function withUnit(v, unit) {
    if (v == null || !isFinite(v) || !unit) return fmt(v);
    const fam = families.find(function (f) { return f.some(function (u) { return u[0] === unit; }); });
    if (!fam || v === 0) return fmt(v) + " " + unit;
    const base = v * fam.find(function (u) { return u[0] === unit; })[1];
    let to = fam[0];
    fam.forEach(function (u) { if (Math.abs(base) >= u[1] * 0.9995) to = u; });
    return fmt(base / to[1]) + " " + to[0];
  }

  // alpha turns "#rrggbb" into an rgba() of opacity a.
  function alpha(hex, a) {
    const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex || "");
    if (!m) return hex;
    return "rgba(" + parseInt(m[1], 16) + "," + parseInt(m[2], 16) + "," + parseInt(m[3], 16) + "," + a + ")";
  }

  // scaleKey names the y scale of a series: its unit on its side.
  function scaleKey(s) {
    return (s.axis === "right" ? "R:" : "L:") + (s.unit || "");
  }

  // units returns the y scales in order of first use, with their side.
  function units(spec) {
    const out = [];
    const seen = {};
    spec.series.forEach(function (s) {
      const k = scaleKey(s);
      if (!(k in seen)) {
        seen[k] = true;
        out.push({key: k, unit: s.unit || "", side: s.axis === "right" ? 1 : 3});
      }
    });
    return out;
  }

  // axisLabel is the axisLabel of the scale's first series that has one,
  // else its series' labels when they are few, with the unit.
  function axisLabel(spec, key, unit) {
    const of = spec.series.filter(function (s) { return scaleKey(s) === key; });
    const named = of.find(function (s) { return s.axisLabel; });
    if (named) return named.axisLabel;
    const names = of.map(function (s) { return s.label; });
    const head = names.length <= 2 ? names.join(", ") : names[0] + ", …";
    return unit ? head + " (" + unit + ")" : head;
  }

  // xValue shows the x value of row i in the legend.
  function xValue(spec, v, i) {
    if (spec.xNames && i != null && spec.xNames[i] != null) return spec.xNames[i];
    return withUnit(v, spec.xUnit);
  }

  function seriesOpts(spec, s, i) {
    const color = s.color || palette[i % palette.length];
    const kind = s.kind || spec.kind || "line";
    const o = {
      label: s.label,
      scale: scaleKey(s),
      stroke: color,
      width: s.width || (kind === "band" ? 1 : 1.6),
      spanGaps: kind !== "points" && !!s.spanGaps,
      show: !s.hidden,
      value: function (u, v) { return withUnit(v, s.unit); },
      points: {show: false},
    };
    if (s.dash) o.dash = [6, 4];
    if (kind === "points") {
      o.paths = function () { return null; };
      o.points = {show: true, space: 0, size: 4, stroke: color, fill: alpha(color, 0.5)};
    }
    return o;
  }

  // bands returns uPlot's bands: the spec's, or each "band" series down to
  // the next series of its unit.
  function bands(spec) {
    if (spec.bands) {
      return spec.bands.map(function (b) {
        const c = spec.series[b.upper].color || palette[b.upper % palette.length];
        return {series: [b.upper + 1, b.lower + 1], fill: alpha(c, 0.15)};
      });
    }
    const out = [];
    spec.series.forEach(function (s, i) {
      if ((s.kind || spec.kind) !== "band") return;
      for (let j = i + 1; j < spec.series.length; j++) {
        if (scaleKey(spec.series[j]) === scaleKey(s)) {
          out.push({series: [i + 1, j + 1], fill: alpha(s.color || palette[i % palette.length], 0.12)});
          return;
        }
      }
    });
    return out;
  }

  function axes(spec) {
    const x = {label: spec.xLabel || "", stroke: "#333", grid: {stroke: "#e6e6e6"}};
    if (spec.xTicks) {
      const t = spec.xTicks;
      x.splits = function () { return t.values; };
      x.values = function (u, splits) {
        return splits.map(function (v) { const k = t.values.indexOf(v); return k < 0 ? fmt(v) : t.labels[k]; });
      };
    } else {
      x.values = ticks;
      x.space = xSpace;
    }
    const out = [x];
    units(spec).forEach(function (un, k) {
      out.push({
        scale: un.key, side: un.side, label: axisLabel(spec, un.key, un.unit), stroke: "#333",
        grid: {show: k === 0, stroke: "#e6e6e6"},
        values: ticks,
        size: axisSize,
      });
    });
    return out;
  }

  function options(spec, width) {
    const scales = {x: {time: false}};
    units(spec).forEach(function (un) { scales[un.key] = {auto: true}; });
    return {
      title: spec.title || "",
      width: width,
      height: spec.height || 380,
      scales: scales,
      axes: axes(spec),
      series: [{label: spec.xLabel || "x", value: function (u, v, si, i) { return xValue(spec, v, i); }}]
        .concat(spec.series.map(function (s, i) { return seriesOpts(spec, s, i); })),
      bands: bands(spec),
      cursor: {drag: {x: true, y: false, setScale: true}, points: {size: 6}},
      legend: {show: true, live: true},
      padding: [null, sidePad, null, sidePad],
    };
  }

  // data turns a spec into uPlot's columns; NaN and undefined become null.
  function data(spec) {
    const clean = function (a) { return a.map(function (v) { return v == null || !isFinite(v) ? null : v; }); };
    return [clean(spec.x)].concat(spec.series.map(function (s) { return clean(s.values || []); }));
  }

  function build(el, spec) {
    const width = Math.max(300, el.clientWidth || 900);
    const cols = data(spec);
    const u = new uPlot(options(spec, width), cols, el);
    const limit = spec.window || 600;
    const chart = {u: u, spec: spec};
    // The user zooms by dragging (a selection that sets the x scale) and
    // zooms out by double-clicking; push keeps a zoomed scale.
    let zoomed = false;
    u.hooks.setSelect = (u.hooks.setSelect || []).concat(function (self) {
      if (self.select.width > 0) zoomed = true;
    });
    u.over.addEventListener("dblclick", function () { zoomed = false; });
    chart.zoomed = function () { return zoomed; };
    chart.push = function (x, ys) {
      const keep = !chart.zoomed();
      cols[0].push(x);
      for (let i = 1; i < cols.length; i++) {
        const v = ys[i - 1];
        cols[i].push(v == null || !isFinite(v) ? null : v);
      }
      if (cols[0].length > limit) {
        const cut = cols[0].length - limit;
        cols.forEach(function (c) { c.splice(0, cut); });
      }
      u.setData(cols, keep);
    };
    chart.setSpec = function (s) {
      const fresh = data(s);
      cols.length = 0;
      fresh.forEach(function (c) { cols.push(c); });
      u.setData(cols, !chart.zoomed());
    };
    window.addEventListener("resize", function () {
      const w = Math.max(300, el.clientWidth || width);
      if (w !== u.width) u.setSize({width: w, height: u.height}); // a height change alone keeps the cursor
    });
    return chart;
  }

  // renderAll builds every chart of root; one that fails is reported on
  // the console and leaves its figure's fallback showing.
  function renderAll(root) {
    root = root || document;
    const charts = {};
    root.querySelectorAll(".dp-chart[data-chart]").forEach(function (el) {
      const id = el.getAttribute("data-chart");
      const src = document.getElementById("data-" + id);
      if (!src) return;
      try {
        charts[id] = build(el, JSON.parse(src.textContent));
      } catch (e) {
        console.error("diperf chart " + id + ": " + e);
        el.textContent = "";
        return;
      }
      const fig = el.closest("figure");
      if (fig) fig.classList.add("dp-live");
    });
    return charts;
  }

  window.diperfCharts = {build: build, renderAll: renderAll, fmt: fmt, tick: tick, withUnit: withUnit, palette: palette};
})();
