/*
 * The search index is fetched when the reader reaches for search, not on every page load.
 * Loaded in <head> of every page (before Material's bundle) by site_src/theme/main.html.
 *
 * Material asks for search/search_index.json (the whole site's text, about 175 KB) and builds
 * its Lunr index in a worker (about 300 ms of a core) as soon as a page opens, whether or not
 * anyone searches. On a phone that is the largest download after the page itself, and it
 * lands before the first paint often enough to make the page's measured paint 1.3 s later
 * (issue 19: Lighthouse counts every request started before the largest paint). Material has
 * no option to postpone it, so this holds back that one request (Material sends it with
 * XMLHttpRequest) until the reader shows an intent to search: pointer on or focus in the
 * search box or its button, one of Material's search keys (/, s, f), or a page opened from a
 * search result (?h=, whose words Material highlights). Any other request passes untouched;
 * if Material ever asks another way, nothing is held and search works as before.
 */
(function () {
  "use strict";

  const INDEX = /\/search\/search_index\.json$/;
  const SEARCH_KEYS = new Set(["/", "s", "f", "S", "F"]);
  const SEARCH_PARTS = ".md-search, label[for='__search'], #__search";
  const open = XMLHttpRequest.prototype.open;
  const send = XMLHttpRequest.prototype.send;
  const forIndex = new WeakSet();
  const held = [];
  let wanted = new URLSearchParams(location.search).has("h");

  XMLHttpRequest.prototype.open = function (method, url, ...rest) {
    if (INDEX.test(new URL(url, location.href).pathname)) forIndex.add(this);
    return open.call(this, method, url, ...rest);
  };

  XMLHttpRequest.prototype.send = function (...body) {
    if (!wanted && forIndex.has(this)) {
      held.push(() => send.apply(this, body));
      return;
    }
    return send.apply(this, body);
  };

  function release() {
    if (wanted) return;
    wanted = true;
    for (const start of held.splice(0)) start();
  }

  function onSearch(event) {
    if (event.target instanceof Element && event.target.closest(SEARCH_PARTS)) release();
  }

  for (const type of ["pointerover", "pointerdown", "focusin"]) {
    document.addEventListener(type, onSearch, { capture: true, passive: true });
  }
  document.addEventListener("keydown", (event) => {
    if (SEARCH_KEYS.has(event.key)) release();
  }, { capture: true, passive: true });
})();
