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

  // Items put above the feed that are on the page already (a followee's comment brought
  // one back) leave their older place: a page never shows an item twice.
  document.addEventListener("htmx:afterSwap", function (e) {
    if (!e.target || e.target.id !== "feed") return;
    var seen = new Set();
    e.target.querySelectorAll("article.card[id]").forEach(function (card) {
      if (!seen.has(card.id)) {
        seen.add(card.id);
        return;
      }
      var muted = card.parentElement && card.parentElement.closest(".muted-card");
      (muted && e.target.contains(muted) ? muted : card).remove();
    });
  });

  // An in-place action (like, comment, hide, the pill) replaces the control it started
  // from. htmx puts focus back on an element of the same id; when there is none, focus goes
  // to the new content's [data-focus-after-swap], else its first control, else the content
  // itself (after the pill: the first new card), never to the page's body. Elements swapped
  // out of band (the pill's slot) are not the new content.
  var focusedBeforeSwap = null;
  var outOfBand = new Set(); // ids of the elements the swap under way replaces out of band
  document.addEventListener("htmx:beforeSwap", function () {
    focusedBeforeSwap = document.activeElement;
    outOfBand.clear();
  });
  document.addEventListener("htmx:oobBeforeSwap", function (e) { if (e.target.id) outOfBand.add(e.target.id); });
  // Swaps of the live stream fire no beforeSwap: what was focused before an earlier swap
  // must not draw focus to them.
  document.addEventListener("htmx:afterSettle", function () { focusedBeforeSwap = null; });
  document.addEventListener("htmx:afterSwap", function (e) {
    var was = focusedBeforeSwap, now = document.activeElement, el = e.target;
    if (!was || was === document.body || was.isConnected || (now && now !== document.body)) return;
    if (!el || !el.isConnected || !el.querySelector || outOfBand.has(el.id)) return;
    focusedBeforeSwap = null;
    if (was.hasAttribute("data-remove-after-request")) {
      focusOn(el.querySelector('[data-testid="card"]') || el);
      return;
    }
    var to = el.querySelector("[data-focus-after-swap]") ||
      Array.prototype.find.call(el.querySelectorAll("button, a[href], summary, textarea, input:not([type=hidden]), select"),
        function (c) { return c.getClientRects().length > 0; });
    focusOn(to || el);
  });
  function focusOn(el) {
    if (!el.matches("button, a[href], summary, textarea, input, select") && !el.hasAttribute("tabindex")) {
      el.setAttribute("tabindex", "-1");
    }
    el.focus({ preventScroll: true });
  }

  // A next page that did not come (the network failed, or the server could not answer for
  // now: 5xx, 429) is asked for again, since htmx's "revealed" fires once per sentinel. After
  // a back-off (the answer's Retry-After when it gives one, else 1, 2, 4 … up to 30 s) a
  // sentinel still on screen asks again ("retry"); one scrolled away asks when it next comes
  // into view. Another 4xx is not retried: the "Older" link shows the server's answer.
  var failures = new WeakMap(); // sentinel -> failed requests in a row
  var waiting = new Set(); // sentinels whose back-off is over, out of view
  function onScreen(el) {
    var r = el.getBoundingClientRect();
    return r.bottom > 0 && r.top < window.innerHeight;
  }
  function retry(el) {
    waiting.delete(el);
    el.removeAttribute("data-waiting-for-view");
    if (!el.isConnected) return;
    if (onScreen(el)) htmx.trigger(el, "retry");
    else {
      waiting.add(el);
      el.setAttribute("data-waiting-for-view", ""); // said, so tests can wait for it
    }
  }
  window.addEventListener("scroll", function () {
    waiting.forEach(function (el) { if (!el.isConnected || onScreen(el)) retry(el); });
  }, { passive: true });
  document.addEventListener("htmx:afterRequest", function (e) {
    var el = e.detail && e.detail.elt;
    if (!el || !el.classList || !el.classList.contains("sentinel") || e.detail.successful) return;
    var xhr = e.detail.xhr, status = xhr ? xhr.status : 0;
    if (status >= 400 && status < 500 && status !== 429) return;
    var n = (failures.get(el) || 0) + 1;
    failures.set(el, n);
    el.classList.add("failed");
    var after = Number(xhr && xhr.getResponseHeader("Retry-After"));
    var wait = Math.min(30, after > 0 ? after : Math.pow(2, n - 1));
    setTimeout(function () { retry(el); }, 1000 * wait);
  });

  // The "N new" slot ([data-poll-seconds]) hears of new items from its live stream; while
  // the stream is not open (it could not be opened, or is reconnecting) the slot asks for
  // itself every data-poll-seconds ("poll" triggers its hx-get).
  // The stream's other events are about the cards on the page: "talk" names the cards whose
  // likes or comments changed ("p<post id>", "i<item id>"), "recheck" asks for every card;
  // the cards on screen among them are brought up to date (GET /talk), and the ones the
  // reader may no longer read leave.
  document.addEventListener("htmx:sseBeforeMessage", function (e) {
    var type = e.detail && e.detail.type;
    if (type !== "talk" && type !== "recheck") return;
    e.preventDefault(); // nothing goes into the slot
    var want = type === "talk" ? new Set(String(e.detail.data).split(" ")) : null;
    var posts = [], items = [];
    document.querySelectorAll('.talk[id^="talk-"]').forEach(function (el) {
      var key = el.id.slice(5); // "p12" or "i7"
      if (want && !want.has(key)) return;
      if (key[0] === "p") posts.push(key.slice(1));
      else if (key[0] === "i") items.push(key.slice(1) + ":" + el.getAttribute("data-post"));
    });
    if (posts.length + items.length === 0) return;
    var url = "/talk?p=" + posts.slice(0, 200).join(",") + "&i=" + items.slice(0, 200).join(",") +
      "&return=" + encodeURIComponent(location.pathname + location.search);
    htmx.ajax("GET", url, { swap: "none" });
  });

  // The header's unread notifications: a page's live stream sends the count ("unread");
  // a page without an open stream asks for the badge when it gets the focus back and every
  // minute ("unread-poll" triggers its hx-get).
  function setUnread(n) {
    var link = document.getElementById("nav-notifications");
    if (!link) return;
    var badge = link.querySelector(".badge");
    var label = n > 99 ? "99+" : String(n);
    link.setAttribute("data-unread", String(n));
    link.setAttribute("aria-label", n > 0 ? "Notifications, " + label + " unread" : "Notifications");
    if (badge) { badge.textContent = label; badge.hidden = n === 0; }
  }
  document.addEventListener("htmx:sseBeforeMessage", function (e) {
    if (!e.detail || e.detail.type !== "unread") return;
    e.preventDefault(); // nothing goes into the slot
    setUnread(Number(e.detail.data) || 0);
  });
  function pollUnread() {
    var link = document.getElementById("nav-notifications");
    var streaming = false;
    document.querySelectorAll("[data-poll-seconds]").forEach(function (slot) { if (live.get(slot)) streaming = true; });
    if (link && !streaming) htmx.trigger(link, "unread-poll");
  }
  window.addEventListener("focus", pollUnread);
  setInterval(pollUnread, 60000);

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
