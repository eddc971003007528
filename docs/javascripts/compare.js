/* The comparison page: choose the rulesets to compare. Without this script every column
   shows and the rows keep the order the generator gave them. The choice is kept in the
   address (?compare=a,b) so a comparison can be linked. */
(function () {
  "use strict";
  function setup() {
    var form = document.querySelector("form.jc-choose");
    var differs = document.querySelector("table.jc-compare--differs tbody");
    var agrees = document.querySelector("table.jc-compare--agrees tbody");
    if (!form || form.dataset.ready) { return; }
    form.dataset.ready = "1";
    // each row's key (its name, legend and words) is open where there is room beside the
    // grid; on a phone a row stays one line over its cells until its name is tapped
    if (window.matchMedia("(min-width: 60em)").matches) {
      document.querySelectorAll("details.jc-row-key, details.jc-agree").forEach(function (d) {
        d.open = true;
      });
    }
    form.hidden = false;
    var boxes = Array.prototype.slice.call(form.querySelectorAll("input[name=profile]"));
    var summary = form.querySelector(".jc-choose-summary");
    var wanted = new URLSearchParams(window.location.search).get("compare");
    if (wanted) {
      var ids = wanted.split(",");
      boxes.forEach(function (box) { box.checked = ids.indexOf(box.value) >= 0; });
    }
    var rows = Array.prototype.slice.call(document.querySelectorAll("table.jc-compare tr.jc-row"));

    function update() {
      var chosen = boxes.filter(function (b) { return b.checked; }).map(function (b) { return b.value; });
      document.querySelectorAll("table.jc-compare [data-profile]").forEach(function (item) {
        item.hidden = chosen.indexOf(item.dataset.profile) < 0;
      });
      // a cell belongs to its column's ruleset (both tables have the same columns)
      var heads = Array.prototype.slice.call(
        document.querySelectorAll("table.jc-compare thead th[data-profile]"), 0, boxes.length);
      var count = 0;
      rows.forEach(function (row) {
        var groups = {};
        row.querySelectorAll("td").forEach(function (cell, column) {
          cell.hidden = heads[column].hidden;
          // a moot value (another parameter makes it not matter) plays as any
          if (!cell.hidden && cell.dataset.group !== "moot") { groups[cell.dataset.group] = true; }
        });
        var differ = Object.keys(groups).length > 1;
        if (differ) { count += 1; }
        row.classList.toggle("jc-row--differs", differ);
        row.classList.toggle("jc-row--chosen-agree", !differ);
        if (differs && agrees) { (differ ? differs : agrees).appendChild(row); }
      });
      if (summary) {
        summary.textContent = count + " of " + rows.length + " rows differ between the " +
          chosen.length + " rulesets chosen.";
      }
      var url = new URL(window.location.href);
      if (chosen.length === boxes.length) { url.searchParams.delete("compare"); }
      else { url.searchParams.set("compare", chosen.join(",")); }
      window.history.replaceState(null, "", url.toString());
    }
    form.addEventListener("change", update);
    form.addEventListener("click", function (event) {
      var all = event.target.dataset ? event.target.dataset.choose : undefined;
      if (!all) { return; }
      boxes.forEach(function (b) { b.checked = all === "all"; });
      update();
    });
    update();
  }
  if (typeof document$ !== "undefined") { document$.subscribe(setup); }
  else { document.addEventListener("DOMContentLoaded", setup); }
})();
