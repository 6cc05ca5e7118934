// Sort a table by a clicked column (numbers by data-v when present), and open the record a link points to.
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("thead th").forEach(function (th, col) {
    th.addEventListener("click", function () {
      var asc = !th.classList.contains("asc");
      table.querySelectorAll("thead th").forEach(function (h) { h.classList.remove("asc", "desc"); });
      th.classList.add(asc ? "asc" : "desc");
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      function key(row) {
        var c = row.cells[col];
        var v = c.hasAttribute("data-v") ? c.getAttribute("data-v") : c.textContent;
        var n = parseFloat(v);
        return v !== "" && !isNaN(n) && isFinite(v) ? n : v.toLowerCase();
      }
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        if (typeof x !== typeof y) { x = String(x); y = String(y); }
        return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
function openTarget() {
  var el = location.hash && document.getElementById(location.hash.slice(1));
  if (el && el.tagName === "DETAILS") { el.open = true; el.scrollIntoView(); }
}
window.addEventListener("hashchange", openTarget);
openTarget();
