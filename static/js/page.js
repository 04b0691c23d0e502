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

  // The "N new" slot ([data-poll-seconds]) hears of new items from its live stream; while
  // the stream is not open (it could not be opened, or is reconnecting) the slot asks for
  // itself every data-poll-seconds ("poll" triggers its hx-get).
  var live = new WeakMap(); // slot -> true while its stream is open
  var asked = new WeakMap(); // slot -> when it last asked (or appeared)
  document.addEventListener("htmx:sseOpen", function (e) { live.set(e.target, true); });
  document.addEventListener("htmx:sseError", function (e) { live.set(e.target, false); });
  setInterval(function () {
    var now = Date.now();
    document.querySelectorAll("[data-poll-seconds]").forEach(function (slot) {
      var every = 1000 * Number(slot.getAttribute("data-poll-seconds"));
      if (!asked.has(slot)) asked.set(slot, now);
      if (live.get(slot) || !(every > 0) || now - asked.get(slot) < every) return;
      asked.set(slot, now);
      htmx.trigger(slot, "poll");
    });
  }, 1000);
})();
