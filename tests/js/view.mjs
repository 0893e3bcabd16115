// Loads ace-view pages in headless Chromium (the system's, driven by
// puppeteer-core) for tests/cli/view.rs: console errors, page errors and
// any request that leaves the file, the sections and commits the DOM
// shows, how long loading, scrolling to the end and filtering take, and a
// screenshot of each page.
// Usage: node view.mjs CHROMIUM SHOTS_DIR PAGE.html...
// Prints one JSON object per page.
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import puppeteer from "puppeteer-core";

const [chromium, shots, ...pages] = process.argv.slice(2);
const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
try {
  for (const file of pages) {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    const errors = [];
    const requests = [];
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warn") errors.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
    page.on("requestfailed", (r) => errors.push(`request failed: ${r.url()}`));
    page.on("request", (r) => {
      if (!r.url().startsWith("file:") && !r.url().startsWith("data:")) requests.push(r.url());
    });
    const url = pathToFileURL(file).href;
    const t0 = Date.now();
    await page.goto(url, { waitUntil: "load", timeout: 120000 });
    const loadMs = Date.now() - t0;
    const t1 = Date.now();
    await page.evaluate(() => new Promise((done) => {
      window.scrollTo(0, document.body.scrollHeight);
      requestAnimationFrame(() => requestAnimationFrame(done));
    }));
    const scrollMs = Date.now() - t1;
    const dom = await page.evaluate(() => ({
      title: document.title,
      sections: [...document.querySelectorAll("details.section")].map((d) => d.getAttribute("data-section")),
      sectionTitles: [...document.querySelectorAll("details.section > summary h3")].map((h) => h.textContent),
      commits: [...document.querySelectorAll("tr[data-commit]")].map((r) => r.getAttribute("data-commit")),
      points: [...document.querySelectorAll("g.point[data-commit] title")].map((t) => t.textContent),
      entries: document.querySelectorAll("tr[data-entry]").length,
      filterShown: !document.getElementById("filter-box")?.hidden,
    }));
    // The filter: the first entry's ID, typed in, leaves that entry shown.
    let filterMs = null;
    let filtered = null;
    const first = await page.$eval("tr[data-entry] code", (c) => c.textContent).catch(() => null);
    if (first && dom.filterShown) {
      const t2 = Date.now();
      await page.type("#filter", first);
      await page.waitForFunction(
        () => document.getElementById("filter-count").textContent.length > 0,
        { timeout: 30000 },
      );
      filterMs = Date.now() - t2;
      filtered = await page.$$eval("tr[data-entry]:not([hidden])", (rows) => rows.length);
      await page.$eval("#filter", (i) => { i.value = ""; i.dispatchEvent(new Event("input")); });
    }
    await page.evaluate(() => window.scrollTo(0, 0));
    const shot = join(shots, basename(file).replace(/\.html$/, "") + ".png");
    await page.screenshot({ path: shot, fullPage: false });
    console.log(JSON.stringify({ page: file, errors, requests, loadMs, scrollMs, filterMs, filtered, shot, ...dom }));
    await page.close();
  }
} finally {
  await browser.close();
}
