/*
 * Instant navigation wherever the site is served. Loaded in <head> of every page (before
 * Material's bundle) by site_src/theme/main.html.
 *
 * Material swaps pages in place only for links found in sitemap.xml, whose addresses are
 * built from mkdocs.yml's site_url; it corrects their protocol and host name to the served
 * ones but not their port or path, so a site served at another port (or under a folder)
 * falls back to full page loads, and the explorer's Python starts again on every return.
 * Here the sitemap's addresses are rewritten, as Material parses it, to where this copy of
 * the site is actually served (this script's own address, two folders up).
 */
(function () {
  "use strict";

  const served = new URL("../../", document.currentScript.src).href;
  const parse = DOMParser.prototype.parseFromString;

  DOMParser.prototype.parseFromString = function (text, type) {
    const parsed = parse.call(this, text, type);
    if (type !== "text/xml" || !parsed.querySelector("urlset")) return parsed;
    const locations = [...parsed.querySelectorAll("url > loc")];
    const built = builtRoot(locations.map((loc) => loc.textContent.trim()));
    if (!built || built === served) return parsed;
    for (const loc of locations) {
      const address = loc.textContent.trim();
      if (address.startsWith(built)) loc.textContent = served + address.slice(built.length);
    }
    return parsed;
  };

  // The site's root as built: the home page's address (the shortest in the sitemap).
  function builtRoot(addresses) {
    const shortest = addresses.reduce((a, b) => (b.length < a.length ? b : a), addresses[0]);
    return shortest && shortest.endsWith("/") ? shortest : null;
  }
})();
