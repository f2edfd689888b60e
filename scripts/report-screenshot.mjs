// Renders a report page in Debian's Chromium (never a downloaded browser) and
// saves a PNG of the page (or of its top `height` pixels):
// `node scripts/report-screenshot.mjs report.html out.png [width] [height]`.
// The committed screenshot of the embedded default in docs/ is made this way.
import { readFileSync } from "node:fs";
import { chromium } from "playwright-core";

const [input, output, width = "1280", height] = process.argv.slice(2);
if (input === undefined || output === undefined) {
  console.error("usage: node scripts/report-screenshot.mjs <report.html> <out.png> [width] [height]");
  process.exit(2);
}
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  const page = await browser.newPage({ viewport: { width: Number(width), height: 800 }, deviceScaleFactor: 1, javaScriptEnabled: false });
  await page.setContent(readFileSync(input, "utf8"), { waitUntil: "load" });
  await page.screenshot({ path: output, fullPage: true, ...(height === undefined ? {} : { clip: { x: 0, y: 0, width: Number(width), height: Number(height) } }) });
} finally {
  await browser.close();
}
