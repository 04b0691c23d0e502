// Tributary's page behaviour that htmx attributes cannot say without eval (the
// Content-Security-Policy allows no eval and no inline script).
(function () {
  "use strict";
  // Elements marked data-remove-after-request go once their request is done (the "N new"
  // pill, after it has put the new items above the feed).
  document.addEventListener("htmx:afterRequest", function (e) {
    var el = e.detail && e.detail.elt;
    if (el && el.hasAttribute && el.hasAttribute("data-remove-after-request") && e.detail.successful) {
      el.remove();
    }
  });
})();
