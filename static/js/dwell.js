// Tributary's card_seen tracker: how long each feed card was at least half visible while the
// page was visible. Dwell is accumulated per card and sent in batches with sendBeacon, every
// few seconds and when the page is hidden. The server sums it to hide what a reader has seen.
(function () {
  "use strict";
  var FLUSH_MS = 5000;
  var MIN_REPORT_MS = 250; // glimpses while scrolling past are not reading
  var MAX_REPORT_MS = 60000;
  var visibleSince = new Map(); // card element -> time it became visible
  var pending = new Map(); // item id -> dwell not yet sent
  var tracked = new WeakSet();

  function now() { return performance.now(); }

  function bank(card) {
    var since = visibleSince.get(card);
    if (since === undefined) return;
    visibleSince.delete(card);
    var id = card.getAttribute("data-item-id");
    pending.set(id, (pending.get(id) || 0) + (now() - since));
  }

  var observer = new IntersectionObserver(function (entries) {
    entries.forEach(function (e) {
      if (e.isIntersecting && e.intersectionRatio >= 0.5 && document.visibilityState === "visible") {
        if (!visibleSince.has(e.target)) visibleSince.set(e.target, now());
      } else {
        bank(e.target);
      }
    });
  }, { threshold: [0, 0.5, 1] });

  function track(root) {
    root.querySelectorAll('[data-testid="card"][data-item-id]').forEach(function (card) {
      if (!tracked.has(card)) {
        tracked.add(card);
        observer.observe(card);
      }
    });
  }

  function flush() {
    // Bank what is on screen now, and keep timing it from here.
    Array.from(visibleSince.keys()).forEach(function (card) { bank(card); visibleSince.set(card, now()); });
    var events = [];
    pending.forEach(function (ms, id) {
      if (ms >= MIN_REPORT_MS) {
        events.push({ item: Number(id), dwell_ms: Math.min(Math.round(ms), MAX_REPORT_MS) });
        pending.delete(id);
      }
    });
    if (events.length === 0) return;
    var body = JSON.stringify({ events: events.slice(0, 100) });
    var blob = new Blob([body], { type: "application/json" });
    if (!(navigator.sendBeacon && navigator.sendBeacon("/events", blob))) {
      fetch("/events", { method: "POST", body: body, headers: { "Content-Type": "application/json" }, keepalive: true });
    }
  }

  if (!document.body.hasAttribute("data-track-dwell")) return; // anonymous visitors: nothing to record
  track(document);
  document.body.addEventListener("htmx:afterSettle", function (e) { track(e.target); });
  setInterval(flush, Number(document.body.getAttribute("data-dwell-flush-ms")) || FLUSH_MS);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") {
      Array.from(visibleSince.keys()).forEach(bank);
      flush();
    }
  });
  window.addEventListener("pagehide", flush);
})();
