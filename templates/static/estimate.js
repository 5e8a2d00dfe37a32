// runner-bench: the estimate page. Estimates the job in the form from
// /estimate/figures.json with the arithmetic of site/src/model/estimate.rs,
// in the same order, and prints every cell as site/src/web/estimate.rs
// does; the job lives in the address, so an estimate can be shared.
"use strict";
(function () {
  var form = document.getElementById("estimate-form");
  var out = document.getElementById("estimate-result");
  if (!form || !out) { return; }
  var root = document.documentElement;
  window.addEventListener("error", function (e) { root.dataset.jsErrors = (root.dataset.jsErrors || "") + e.message + "\n"; });
  var NAMES = ["ref", "cpu", "par", "read", "write", "cache", "restore", "save", "down"];
  var PARTS = ["CPU", "disk", "cache", "download"];
  // The columns of templates/estimate.html's tables.
  var HEAD = ["#", "Runner", "Provider", "CPU s", "Disk s", "Cache s", "Download s", "Job s, fastest–slowest", "Cost per run", "Per 1,000 runs", "Cost #"];
  var MBIT_PER_MIB = 8.388608;
  var ZERO = { med: 0, lo: 0, hi: 0 };
  var ALL_CORES = "CPU, all cores";
  var figures = null, names = {};

  function add(a, b) { return { med: a.med + b.med, lo: a.lo + b.lo, hi: a.hi + b.hi }; }
  function scale(t, k) { return { med: t.med * k, lo: t.lo * k, hi: t.hi * k }; }
  function atRate(amount, s) { return amount === 0 ? ZERO : { med: amount / s.med, lo: amount / s.max, hi: amount / s.min }; }
  function scaleTime(s, k) { return k === 0 ? ZERO : { med: s.med * k, lo: s.min * k, hi: s.max * k }; }
  function fixed(v, d) { var k = Math.pow(10, d); return (Math.round(v * k) / k).toFixed(d); }
  function cmp(a, b) { return a < b ? -1 : a > b ? 1 : 0; }
  // stats::ranks: a row whose range overlaps the first row's of the current place shares it.
  function ranks(spans) {
    var out = [], leader = -1;
    spans.forEach(function (s, i) {
      var l = spans[leader];
      if (l && l.lo <= s.hi && s.lo <= l.hi) {
        out[leader].tied = true;
        out.push({ place: out[leader].place, tied: true });
      } else {
        leader = i;
        out.push({ place: i + 1, tied: false });
      }
    });
    return out;
  }

  function estimate(runners, job) {
    var used = [job.cpu > 0, job.read > 0 || job.write > 0, job.restore > 0 || job.save > 0, job.down > 0];
    // Amdahl's law on measured figures: the serial seconds scale with
    // one-thread CoreMark, the parallel ones with all-core CoreMark.
    var share = Math.min(Math.max(job.par, 0), 100) / 100;
    var serialS = job.cpu * (1 - share), parallelS = job.cpu * share;
    var serial = used[0] && serialS > 0, parallel = used[0] && parallelS > 0;
    var medians = function (kind) {
      var m = [];
      runners.forEach(function (r) { if (r.id === job.ref) { (r[kind] || []).forEach(function (c) { m.push([c.group, c.it_s.med]); }); } });
      return m;
    };
    var one = medians("cpu"), all = medians("allcore");
    var e = { tables: [], missing: [], otherGroup: [], noReference: false };
    if ((serial && !one.length) || (parallel && !all.length)) { e.noReference = true; return e; }
    // Seconds on the reference × its speed ÷ this runner's, within one group.
    var scaled = function (seconds, part, figs, reference) {
      var out = [];
      figs.forEach(function (c) {
        var g = reference.filter(function (g) { return g[0] === c.group; })[0];
        if (g) { out.push([[part + " " + c.group], atRate(seconds * g[1], c.it_s)]); }
      });
      return out;
    };
    runners.forEach(function (r, i) {
      var allcore = r.allcore || [];
      var oneOpts = serial ? scaled(serialS, PARTS[0], r.cpu, one) : [[[], ZERO]];
      var allOpts = parallel ? scaled(parallelS, ALL_CORES, allcore, all) : [[[], ZERO]];
      if ((!oneOpts.length && r.cpu.length) || (!allOpts.length && allcore.length)) { e.otherGroup.push(i); return; }
      var options = [[], [], [], []];
      oneOpts.forEach(function (a) { allOpts.forEach(function (b) { options[0].push([a[0].concat(b[0]), add(a[1], b[1])]); }); });
      r.disk.forEach(function (d) { options[1].push([[PARTS[1] + " " + d.group], add(atRate(job.read, d.read), atRate(job.write, d.write))]); });
      r.cache.forEach(function (c) {
        if (c.cache === job.cache) { options[2].push([[PARTS[2] + " " + c.group], add(scaleTime(c.restore_s, job.restore / c.payload_mib), scaleTime(c.save_s, job.save / c.payload_mib))]); }
      });
      r.net.forEach(function (n) { options[3].push([[PARTS[3] + " " + n.group], atRate(job.down * MBIT_PER_MIB, n.mbps)]); });
      var missing = [];
      if (used[0] && !options[0].length) {
        if (!oneOpts.length) { missing.push(PARTS[0]); }
        if (!allOpts.length) { missing.push(ALL_CORES); }
      }
      [1, 2, 3].forEach(function (j) { if (used[j] && !options[j].length) { missing.push(PARTS[j]); } });
      if (missing.length) { e.missing.push([i, missing]); return; }
      var choices = [[null, null, null, null]];
      [0, 1, 2, 3].forEach(function (p) {
        if (!used[p]) { return; }
        var next = [];
        choices.forEach(function (c) { options[p].forEach(function (o) { var d = c.slice(); d[p] = o; next.push(d); }); });
        choices = next;
      });
      choices.forEach(function (c) {
        var groups = [], total = ZERO;
        c.forEach(function (o) { if (o) { groups = groups.concat(o[0]); total = add(total, o[1]); } });
        var row = { runner: i, parts: c.map(function (o) { return o && o[1]; }), total: total,
          cost: r.usd_per_minute == null ? null : scale(total, r.usd_per_minute / 60) };
        var t = e.tables.filter(function (t) { return t.groups.join("\n") === groups.join("\n"); })[0];
        if (t) { t.rows.push(row); } else { e.tables.push({ groups: groups, rows: [row] }); }
      });
    });
    e.tables.forEach(function (t) {
      var name = function (row) { return [runners[row.runner].provider, runners[row.runner].label]; };
      var byName = function (a, b) { var x = name(a), y = name(b); return cmp(x[0], y[0]) || cmp(x[1], y[1]); };
      t.rows.sort(function (a, b) { return cmp(a.total.med, b.total.med) || byName(a, b); });
      ranks(t.rows.map(function (r) { return r.total; })).forEach(function (p, j) { t.rows[j].place = p; });
      var priced = t.rows.filter(function (r) { return r.cost; });
      priced.sort(function (a, b) { return cmp(a.cost.med, b.cost.med) || byName(a, b); });
      ranks(priced.map(function (r) { return r.cost; })).forEach(function (p, j) { priced[j].costPlace = p; });
    });
    e.tables.sort(function (a, b) {
      if (a.rows.length !== b.rows.length) { return b.rows.length - a.rows.length; }
      for (var j = 0; j < Math.min(a.groups.length, b.groups.length); j++) { var c = cmp(a.groups[j], b.groups[j]); if (c) { return c; } }
      return a.groups.length - b.groups.length;
    });
    return e;
  }

  function el(tag, text, cls) {
    var n = document.createElement(tag);
    if (text != null) { n.textContent = text; }
    if (cls) { n.className = cls; }
    return n;
  }
  function place(p) { return p ? (p.tied ? "≈" : "") + p.place : "—"; }
  function numCell(text, sub) { var td = el("td", text, "num"); if (sub != null) { td.appendChild(el("span", sub, "ci")); } return td; }

  // site/src/web/estimate.rs's `caption`: each group in words, once, with
  // the parts compared within it.
  function caption(groups) {
    var named = [];
    groups.forEach(function (g) {
      // A part's name may hold spaces (ALL_CORES); a group id holds none.
      var at = g.lastIndexOf(" "), part = at < 0 ? g : g.slice(0, at), id = at < 0 ? "" : g.slice(at + 1);
      var name = Object.prototype.hasOwnProperty.call(names, id) ? names[id] : id;
      var n = named.find(function (x) { return x[0] === name; });
      if (n) { n[1].push(part); } else { named.push([name, [part]]); }
    });
    return "Compared within one group each: " + named.map(function (n) { return n[1].join(", ") + " (" + n[0] + ")"; }).join("; ");
  }

  // The same markup as templates/estimate.html's #estimate-result.
  function render(runners, e) {
    var frag = document.createDocumentFragment();
    if (e.noReference) { frag.appendChild(el("p", "The reference runner has no CoreMark figure, so CPU seconds cannot be scaled: choose another.", "note")); }
    e.tables.forEach(function (t) {
      var table = el("table", null, "estimate");
      table.appendChild(el("caption", caption(t.groups)));
      var hr = table.appendChild(el("thead")).appendChild(el("tr"));
      HEAD.forEach(function (h, j) { var th = hr.appendChild(el("th", h, j > 2 || !j ? "num" : null)); th.scope = "col"; });
      var body = table.appendChild(el("tbody"));
      t.rows.forEach(function (row) {
        var r = runners[row.runner], tr = body.appendChild(el("tr"));
        tr.appendChild(numCell(place(row.place)));
        var th = tr.appendChild(el("th")), a = th.appendChild(el("a", r.label));
        th.scope = "row"; a.href = r.url;
        tr.appendChild(el("td", r.provider));
        row.parts.forEach(function (p) { tr.appendChild(numCell(p ? fixed(p.med, 1) : "—")); });
        tr.appendChild(numCell(fixed(row.total.med, 1), fixed(row.total.lo, 1) + "–" + fixed(row.total.hi, 1)));
        var c = row.cost;
        tr.appendChild(numCell(c ? "$" + fixed(c.med, 4) : "—", c ? "$" + fixed(c.lo, 4) + "–$" + fixed(c.hi, 4) : ""));
        tr.appendChild(numCell(c ? "$" + fixed(c.med * 1000, 2) : "—"));
        tr.appendChild(numCell(place(row.costPlace)));
      });
      frag.appendChild(el("div", null, "scroll")).appendChild(table);
    });
    if (!e.noReference && !e.tables.length) { frag.appendChild(el("p", "No runner has figures for every part of this job in one comparison group.")); }
    if (e.otherGroup.length) {
      frag.appendChild(el("h2", "In another comparison group"));
      var og = frag.appendChild(el("ul", null, "other-group"));
      e.otherGroup.forEach(function (i) {
        var r = runners[i], li = og.appendChild(el("li")), a = li.appendChild(el("a", r.label));
        a.href = r.url;
        li.appendChild(document.createTextNode(" (" + r.provider + "): its CoreMark figures are in another comparison group than the reference runner's, so they cannot be compared; choose it, or another runner of its group, as the reference runner to estimate it."));
      });
    }
    if (e.missing.length) {
      frag.appendChild(el("h2", "Not estimated"));
      var ul = frag.appendChild(el("ul", null, "not-measured"));
      e.missing.forEach(function (m) {
        var r = runners[m[0]], li = ul.appendChild(el("li")), a = li.appendChild(el("a", r.label));
        a.href = r.url;
        li.appendChild(document.createTextNode(" (" + r.provider + "): not measured: " + m[1].join("; ")));
      });
    }
    out.replaceChildren(frag);
    // How many estimates the script has shown (the browser test waits on it).
    out.dataset.estimated = String(Number(out.dataset.estimated || 0) + 1);
  }

  function job() {
    var j = {};
    NAMES.forEach(function (n) {
      var v = form.elements[n].value;
      j[n] = n === "ref" || n === "cache" ? v : Math.max(0, parseFloat(v) || 0);
    });
    return j;
  }
  // The job is the reader's now: the typical job's name and description
  // no longer describe it.
  function ownJob() {
    var p = document.getElementById("estimate-preset");
    if (p) { p.textContent = "Your job, as the form below describes it: not one of the typical jobs."; }
    var cur = document.querySelector("nav[aria-label=Presets] [aria-current=page]");
    if (cur) { cur.replaceWith(document.createTextNode(cur.textContent)); }
    document.title = document.title.replace(/^Estimate a job: .* · /, "Estimate a job: your job · ");
  }
  function update(save) {
    ownJob();
    if (save) {
      var q = new URLSearchParams();
      NAMES.forEach(function (n) { q.set(n, form.elements[n].value); });
      history.replaceState(null, "", location.pathname + "?" + q.toString());
    }
    var run = function () { render(figures, estimate(figures, job())); };
    if (figures) { run(); return; }
    fetch(form.getAttribute("data-figures")).then(function (r) { return r.json(); }).then(function (f) { figures = f.runners; names = f.names; run(); })
      .catch(function (err) { root.dataset.jsErrors = (root.dataset.jsErrors || "") + err + "\n"; });
  }
  form.addEventListener("submit", function (ev) { ev.preventDefault(); });
  form.addEventListener("input", function () { update(true); });
  form.addEventListener("change", function () { update(true); });
  var params = new URLSearchParams(location.search);
  var given = NAMES.filter(function (n) { return params.has(n); });
  given.forEach(function (n) { form.elements[n].value = params.get(n); });
  // A shared address: estimate its job; the page as built needs no script.
  if (given.length) { update(false); }
})();
