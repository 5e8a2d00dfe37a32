// runner-bench: sortable, filterable tables. The page reads fully without
// this script; the view (sort, filter) lives in the URL so it can be shared.
"use strict";
(function () {
  var root = document.documentElement;
  // A page-side record of script errors, which the browser test reads.
  window.addEventListener("error", function (e) { root.dataset.jsErrors = (root.dataset.jsErrors || "") + e.message + "\n"; });
  document.addEventListener("securitypolicyviolation", function (e) { root.dataset.jsErrors = (root.dataset.jsErrors || "") + "CSP " + e.violatedDirective + "\n"; });

  var params = new URLSearchParams(location.search);
  function save() {
    var q = params.toString();
    history.replaceState(null, "", location.pathname + (q ? "?" + q : "") + location.hash);
  }
  // Numbers sort as numbers (the leading figure of "7.76; 7.12–22.53", of
  // a median followed by its interval, and of a shared place "≈2"); an em
  // dash (no figure) always sorts last.
  function key(cell) {
    // A cell may give its sort value (a price shown as "$0.008/min").
    var t = cell ? (cell.getAttribute("data-sort") || cell.textContent).trim().replace(/^≈/, "") : "";
    var n = parseFloat(t);
    return isNaN(n) ? { n: null, t: t.toLowerCase() } : { n: n, t: t };
  }
  function sortTable(table, col, dir) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[col]), y = key(b.cells[col]);
      if (x.n === null && y.n === null) { return dir * x.t.localeCompare(y.t); }
      if (x.n === null) { return 1; }
      if (y.n === null) { return -1; }
      return dir * (x.n - y.n);
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      if (i === col) { th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending"); } else { th.removeAttribute("aria-sort"); }
    });
  }
  var tables = document.querySelectorAll("table.sortable");
  Array.prototype.forEach.call(tables, function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      // A column of figures of several comparison groups never sorts.
      if (th.classList.contains("nosort")) { return; }
      var b = document.createElement("button");
      b.type = "button";
      while (th.firstChild) { b.appendChild(th.firstChild); }
      th.appendChild(b);
      b.addEventListener("click", function () {
        var dir = th.getAttribute("aria-sort") === "descending" ? 1 : -1;
        sortTable(table, col, dir);
        params.set("sort", table.id + ":" + col + ":" + (dir > 0 ? "asc" : "desc"));
        save();
      });
    });
  });
  var sort = (params.get("sort") || "").split(":");
  var sorted = sort.length === 3 && document.getElementById(sort[0]);
  if (sorted && sorted.tHead) { sortTable(sorted, parseInt(sort[1], 10) || 0, sort[2] === "asc" ? 1 : -1); }

  var controls = document.getElementById("controls");
  if (controls && tables.length) {
    controls.innerHTML = '<label>Filter rows <input type="search" id="filter" placeholder="runner, provider, backend…"></label>' +
      '<label><input type="checkbox" id="hide-marked"> Hide excluded and incomplete results</label>' +
      '<span id="shown" role="status" aria-live="polite"></span>';
    controls.hidden = false;
    var input = document.getElementById("filter"), hide = document.getElementById("hide-marked"), shown = document.getElementById("shown");
    input.value = params.get("q") || "";
    hide.checked = params.get("marked") === "hide";
    var apply = function () {
      var q = input.value.trim().toLowerCase(), n = 0, total = 0;
      Array.prototype.forEach.call(tables, function (table) {
        Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
          var show = (!q || row.textContent.toLowerCase().indexOf(q) >= 0) && !(hide.checked && row.classList.contains("marked"));
          row.hidden = !show; total++; if (show) { n++; }
        });
      });
      shown.textContent = n + " of " + total + " rows shown";
      if (q) { params.set("q", q); } else { params.delete("q"); }
      if (hide.checked) { params.set("marked", "hide"); } else { params.delete("marked"); }
      save();
    };
    input.addEventListener("input", apply);
    hide.addEventListener("change", apply);
    apply();
  }

  // The overview: filters by architecture and OS, from the values the page
  // lists (text only: options are made with textContent, never markup).
  var filters = document.getElementById("overview-filters");
  // One table per comparison group: the filters apply to every one.
  var overview = document.querySelectorAll("table.overview");
  if (filters && overview.length) {
    var selects = {};
    ["arch", "os"].forEach(function (name) {
      var label = document.createElement("label");
      label.appendChild(document.createTextNode(name === "arch" ? "Architecture " : "OS "));
      var select = document.createElement("select");
      select.id = "filter-" + name;
      var values = [""].concat((filters.getAttribute("data-" + name) || "").split(",").filter(Boolean));
      values.forEach(function (v) {
        var o = document.createElement("option");
        o.value = v;
        o.textContent = v || "all";
        select.appendChild(o);
      });
      select.value = values.indexOf(params.get(name) || "") >= 0 ? (params.get(name) || "") : "";
      label.appendChild(select);
      filters.appendChild(label);
      selects[name] = select;
    });
    var count = document.createElement("span");
    count.setAttribute("role", "status");
    count.setAttribute("aria-live", "polite");
    filters.appendChild(count);
    filters.hidden = false;
    var filter = function () {
      var n = 0, rows = [];
      Array.prototype.forEach.call(overview, function (t) { rows = rows.concat(Array.prototype.slice.call(t.tBodies[0].rows)); });
      rows.forEach(function (row) {
        var show = ["arch", "os"].every(function (name) {
          var v = selects[name].value;
          return !v || row.getAttribute("data-" + name) === v;
        });
        row.hidden = !show;
        if (show) { n++; }
      });
      count.textContent = n + " of " + rows.length + " runners shown";
      ["arch", "os"].forEach(function (name) {
        if (selects[name].value) { params.set(name, selects[name].value); } else { params.delete(name); }
      });
      save();
    };
    selects.arch.addEventListener("change", filter);
    selects.os.addEventListener("change", filter);
    filter();
  }
  root.dataset.js = "ok";
})();
