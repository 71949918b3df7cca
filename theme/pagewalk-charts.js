// pagewalk: puts each chart's data table in its "Data table" box. The build
// ships the table inside a <script type="text/html"> (figures::figure_html)
// because mdBook's search indexes every text node except scripts: a table
// of raw numbers would otherwise be the first hit for "TLB". The table's
// HTML was escaped and written by the build; it is only moved here.
(function () {
  "use strict";
  function place() {
    document.querySelectorAll("details.pw-chart-data script.pw-table-html").forEach(function (s) {
      s.insertAdjacentHTML("afterend", s.textContent);
      s.remove();
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", place);
  } else {
    place();
  }
})();
