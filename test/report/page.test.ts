/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The report page in a real browser (Debian's Chromium, scripting off): the
 * figures a person sees are those of dist/cache-plan.json and
 * `cost --format json`, nothing is fetched, nothing logs an error, every
 * drawing has a text alternative and a table, and the page reads at 1280 and
 * 390 pixels wide (compared with committed screenshots).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CostResult } from "../../src/cost/cost.js";
import type { CachePlan } from "../../src/protocol/cache-plan.js";
import { repoRoot } from "../build/helpers.js";
import { runCliInProcess, runCliInProcessFrom } from "../helpers/cli.js";
import { removeTempDirs, tempDir } from "../helpers/temp-project.js";
import { compareWithReference, launchChromium } from "./browser.js";
import { reportProject, sampleEvals } from "./helpers.js";

const referenceDir = join(repoRoot, "test/report/reference");

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await removeTempDirs();
});

interface OpenedPage {
  page: Page;
  requests: string[];
  errors: string[];
}

/** Opens a report file with scripting off, recording every request and every console error. */
async function openReport(file: string, width: number): Promise<OpenedPage> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, deviceScaleFactor: 1, javaScriptEnabled: false });
  const page = await context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on("request", (request) => requests.push(request.url()));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
  return { page, requests, errors };
}

const number = (text: string): number => Number(text.replace(/[$,%]/g, ""));

describe("the embedded default's report in Chromium", () => {
  let opened: OpenedPage;
  let plan: CachePlan;
  let costs: CostResult;
  let reportFile: string;
  beforeAll(async () => {
    reportFile = join(await tempDir(), "report.html");
    const run = await runCliInProcess("report", "--root", repoRoot, "--output", reportFile);
    expect(run.code).toBe(0);
    const priced = await runCliInProcess("cost", "--root", repoRoot, "--format", "json");
    costs = JSON.parse(priced.stdout) as CostResult;
    plan = JSON.parse(readFileSync(join(repoRoot, "dist/cache-plan.json"), "utf8")) as CachePlan;
    opened = await openReport(reportFile, 1280);
  }, 120_000);
  afterAll(async () => {
    await opened?.page.context().close();
  });

  it("fetches nothing but the page itself and logs no error", () => {
    expect(opened.requests).toEqual([pathToFileURL(reportFile).href]);
    expect(opened.errors).toEqual([]);
  });

  it("shows every block's tokens, running total, bytes, sha256 and breakpoint as dist/cache-plan.json has them", async () => {
    const shown = await opened.page.$$eval("tr[data-variant][data-block]", (rows) =>
      rows.map((row) => {
        const field = (name: string) => (row.querySelector(`[data-field="${name}"]`) as HTMLElement | null)?.innerText ?? "";
        return { variant: row.getAttribute("data-variant"), block: row.getAttribute("data-block"), tokens: field("tokens"), cumulativeTokens: field("cumulativeTokens"), bytes: field("bytes"), sha256: field("sha256"), breakpoint: field("breakpoint") };
      }),
    );
    const expected = Object.entries(plan.variants).flatMap(([variant, { blocks }]) =>
      blocks.map((block) => ({ variant, block: block.name, tokens: block.tokens, cumulativeTokens: block.cumulativeTokens, bytes: block.bytes, sha256: block.sha256.slice(0, 12), breakpoint: block.breakpoint ? "yes" : "no" })),
    );
    expect(shown.map((row) => ({ ...row, tokens: number(row.tokens), cumulativeTokens: number(row.cumulativeTokens), bytes: number(row.bytes) }))).toEqual(expected);
  });

  it("draws each variant's blocks to scale in tokens, breakpoints at the plan's block ends", async () => {
    const largest = Math.max(...Object.values(plan.variants).map(({ blocks }) => blocks.at(-1)?.cumulativeTokens ?? 0));
    for (const [variant, { blocks }] of Object.entries(plan.variants)) {
      const drawn = await opened.page.$eval(`#layout-${variant}`, (svg) => ({
        rects: [...svg.querySelectorAll("rect:not(.track)")].map((rect) => ({ x: Number(rect.getAttribute("x")), width: Number(rect.getAttribute("width")) })),
        breakpoints: [...svg.querySelectorAll("line.bp")].map((line) => Number(line.getAttribute("x1"))),
      }));
      expect(drawn.rects).toHaveLength(blocks.length);
      blocks.forEach((block, index) => {
        expect(drawn.rects[index]?.width).toBeCloseTo((block.tokens / largest) * 1000, 1);
        expect(drawn.rects[index]?.x).toBeCloseTo(((block.cumulativeTokens - block.tokens) / largest) * 1000, 1);
      });
      expect(drawn.breakpoints).toEqual(blocks.filter((block) => block.breakpoint).map((block) => expect.closeTo((block.cumulativeTokens / largest) * 1000, 1)));
    }
  });

  it("shows cost --format json's cached share, price per 1,000 sessions and cold-variant read for every policy and variant", async () => {
    const shown = await opened.page.$$eval("tr[data-policy]", (rows) =>
      rows.map((row) => {
        const field = (name: string) => (row.querySelector(`[data-field="${name}"]`) as HTMLElement | null)?.innerText ?? "";
        return { key: [row.getAttribute("data-provider"), row.getAttribute("data-model"), row.getAttribute("data-policy"), row.getAttribute("data-variant")].join(" / "), cached: field("cachedFraction"), price: field("inputCostPer1000Sessions"), cold: field("coldVariantRead"), isDefault: row.classList.contains("default") };
      }),
    );
    expect(shown).toEqual(
      costs.rows.map((row) => ({
        key: [row.provider, row.model, row.policy, row.variant].join(" / "),
        cached: `${(row.cachedFraction * 100).toFixed(1)}%`,
        price: expect.stringMatching(/^\$[\d,]+\.\d\d$/),
        cold: expect.any(String),
        isDefault: row.isDefault,
      })),
    );
    shown.forEach((row, index) => {
      const expected = costs.rows[index];
      expect(number(row.price)).toBe(Number(expected?.inputCostPer1000Sessions.toFixed(2)));
      expect(number(row.cold)).toBe(expected?.coldVariantRead);
    });
  });

  it("gives every drawing a text alternative (role img, title and desc) and a table with its figures", async () => {
    const drawings = await opened.page.$$eval("svg", (svgs) =>
      svgs.map((svg) => {
        const ids = (svg.getAttribute("aria-labelledby") ?? "").split(" ").filter((id) => id !== "");
        return { id: svg.id, role: svg.getAttribute("role"), labels: ids.map((id) => document.getElementById(id)?.textContent?.trim() ?? ""), inFigureWithTable: svg.closest("section")?.querySelector("table") !== null };
      }),
    );
    expect(drawings.length).toBeGreaterThan(3);
    for (const drawing of drawings) {
      expect(drawing.role, drawing.id).toBe("img");
      expect(drawing.labels, drawing.id).toHaveLength(2);
      for (const label of drawing.labels) expect(label.length, drawing.id).toBeGreaterThan(10);
      expect(drawing.inFigureWithTable, drawing.id).toBe(true);
    }
    // The graph's table names every skill the graph draws.
    const skills = await opened.page.$$eval("table.skills tr[data-skill]", (rows) => rows.map((row) => row.getAttribute("data-skill")));
    expect(skills).toEqual(Object.keys(JSON.parse(readFileSync(join(repoRoot, "dist/manifest.json"), "utf8")).skills as object).sort());
  });
});

describe("a report with a base and evaluations, legible at 1280 and 390 pixels wide", () => {
  let reportFile: string;
  beforeAll(async () => {
    const project = await reportProject("tail");
    // Results of this very build, as CI reports them (another build's get a warning on the page).
    const { results, baseline } = sampleEvals((JSON.parse(readFileSync(join(project.root, "dist/manifest.json"), "utf8")) as { staticPrefix: { cacheKey: string } }).staticPrefix.cacheKey);
    await writeFile(join(project.root, "results.json"), JSON.stringify(results));
    await writeFile(join(project.root, "baseline.json"), JSON.stringify(baseline));
    await writeFile(join(project.root, "traffic.json"), JSON.stringify({ sessionsPerMinute: 600, models: [{ provider: "anthropic", model: "claude-sonnet-4-5" }] }));
    // The base is given relative to the working folder, so the page names it the same on every machine.
    const { cp } = await import("node:fs/promises");
    await cp(project.baseDist, join(project.root, "base"), { recursive: true });
    reportFile = join(project.root, "report.html");
    const run = await runCliInProcessFrom(project.root, "report", "--base", "base", "--evals", "results.json", "--baseline", "baseline.json", "--profile", "traffic.json", "--output", "report.html");
    expect(run).toMatchObject({ code: 0, stderr: "" });
  }, 120_000);

  for (const width of [1280, 390]) {
    it(`at ${width} px: no sideways scrolling of the page, no text under 11 px, the same picture as the reference`, async () => {
      const { page, requests, errors } = await openReport(reportFile, width);
      try {
        expect(requests).toHaveLength(1);
        expect(errors).toEqual([]);
        const layout = await page.evaluate(() => ({
          scrollWidth: document.documentElement.scrollWidth,
          clientWidth: document.documentElement.clientWidth,
          smallest: Math.min(...[...document.querySelectorAll("body *")].filter((element) => [...element.childNodes].some((node) => node.nodeType === 3 && (node.textContent ?? "").trim() !== "")).map((element) => Number.parseFloat(getComputedStyle(element).fontSize))),
        }));
        expect(layout.scrollWidth).toBeLessThanOrEqual(layout.clientWidth);
        expect(layout.smallest).toBeGreaterThanOrEqual(11);
        // The references are rendered in Liberation Sans (Debian's fonts-liberation, which .ci/run installs): another font reflows the page.
        expect(execFileSync("fc-list", [":family=Liberation Sans"], { encoding: "utf8" }).trim(), "Liberation Sans is not installed: apt-get install fonts-liberation").not.toBe("");
        const shot = await page.screenshot({ fullPage: true });
        const comparison = compareWithReference(shot, join(referenceDir, `report-${width}.png`), join(await tempDir(), `report-${width}.diff.png`));
        // Anti-aliasing differences are recognised and left out; what remains must stay under 0.5% of the page.
        expect(comparison.differing, `differs from the reference; diff: ${comparison.diffFile ?? "none"}`).toBeLessThan(0.005);
      } finally {
        await page.context().close();
      }
    });
  }
});

describe("the embedded default's report: bar labels and print", () => {
  let reportFile: string;
  beforeAll(async () => {
    reportFile = join(await tempDir(), "report.html");
    const run = await runCliInProcess("report", "--root", repoRoot, "--output", reportFile);
    expect(run.code).toBe(0);
  }, 120_000);

  for (const width of [1280, 768, 390, 320]) {
    it(`at ${width} px a bar label shows its figure whole or not at all`, async () => {
      const { page } = await openReport(reportFile, width);
      try {
        const labels = await page.$$eval(".seg-labels > span", (spans) =>
          spans.map((span) => {
            const box = span.getBoundingClientRect();
            const figure = span.querySelector(".seg-figure")?.getBoundingClientRect();
            return {
              text: span.textContent ?? "",
              clippedSideways: span.scrollWidth > span.clientWidth,
              // Shown whole inside the label, or wrapped below it, out of sight.
              figure: figure === undefined ? "missing" : figure.top >= box.bottom - 0.5 ? "hidden" : figure.left >= box.left - 0.5 && figure.right <= box.right + 0.5 && figure.bottom <= box.bottom + 0.5 ? "whole" : "cut",
            };
          }),
        );
        expect(labels.length).toBeGreaterThan(3);
        for (const label of labels) {
          expect(label.figure, label.text).not.toMatch(/cut|missing/);
          // A label showing its figure shows all of itself; a narrower one may cut only its name, with an ellipsis.
          if (label.figure === "whole") expect(label.clippedSideways, label.text).toBe(false);
        }
        if (width === 1280) expect(labels.every((label) => label.figure === "whole")).toBe(true);
      } finally {
        await page.context().close();
      }
    });
  }

  for (const width of [794, 718]) {
    it(`printed at ${width} px nothing in a table or the skills graph runs past its box`, async () => {
      const { page } = await openReport(reportFile, width);
      try {
        await page.emulateMedia({ media: "print" });
        const cut = await page.$$eval(".table-wrap, .graph-wrap", (wraps) =>
          wraps.flatMap((wrap) => {
            const right = wrap.getBoundingClientRect().right;
            const past = [...wrap.querySelectorAll("*")].filter((element) => element.getBoundingClientRect().right > right + 0.5).map((element) => `${element.tagName} ${(element.textContent ?? "").slice(0, 40)}`);
            return wrap.scrollWidth > wrap.clientWidth + 0.5 ? [`${wrap.className} scrolls`, ...past] : past;
          }),
        );
        expect(cut).toEqual([]);
        // The PDF a browser prints holds the same layout.
        expect((await page.pdf({ format: "A4" })).length).toBeGreaterThan(1000);
      } finally {
        await page.context().close();
      }
    });
  }
});

describe("text drawn on colour in a report against a base, in Chromium", () => {
  /** WCAG 2 contrast of two computed colours, "rgb(r, g, b)". */
  function contrast(first: string, second: string): number {
    const luminance = (color: string): number => {
      const [r = 0, g = 0, b = 0] = (color.match(/\d+(\.\d+)?/g) ?? []).map(Number).map((channel) => {
        const c = channel / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const [light, dark] = [luminance(first), luminance(second)].sort((a, b) => b - a) as [number, number];
    return (light + 0.05) / (dark + 0.05);
  }

  it("every bar label and lint badge reads at 4.5:1 or more against what it is drawn on (WCAG AA)", async () => {
    const project = await reportProject("prefix");
    const file = join(project.root, "skills/style-guide/SKILL.md");
    await writeFile(file, `${readFileSync(file, "utf8").replace(/^name: /m, "requireSkills: [x]\nname: ")}`);
    const reportFile = join(await tempDir(), "report.html");
    expect((await runCliInProcessFrom(project.root, "report", "--base", project.baseDist, "--output", reportFile)).code).toBe(0);
    const { page } = await openReport(reportFile, 1280);
    try {
      const labels = await page.$$eval(".seg-labels > .seg", (spans) =>
        spans.map((span) => {
          // Hit testing sees only what is in the viewport.
          span.scrollIntoView({ block: "center" });
          const box = span.getBoundingClientRect();
          const under = document.elementsFromPoint(box.left + 3, box.top + box.height / 2).find((element) => element.tagName.toLowerCase() === "rect" && !element.classList.contains("track"));
          return { text: span.textContent ?? "", color: getComputedStyle(span).color, fill: under === undefined ? "none" : getComputedStyle(under).fill };
        }),
      );
      const states = new Set(labels.map((label) => label.text.replace(/^.*· /, "")));
      for (const state of ["intact", "changed", "invalidated"]) expect(states.has(state), state).toBe(true);
      const badges = await page.$$eval("g.badge", (groups) => groups.map((group) => ({ text: group.textContent ?? "", color: getComputedStyle(group.querySelector("text") as Element).fill, fill: getComputedStyle(group.querySelector("rect") as Element).fill })));
      expect(badges.length).toBeGreaterThan(0);
      for (const drawn of [...labels, ...badges]) {
        expect(drawn.fill, drawn.text).not.toBe("none");
        expect(contrast(drawn.color, drawn.fill), `${drawn.text}: ${drawn.color} on ${drawn.fill}`).toBeGreaterThanOrEqual(4.5);
      }
    } finally {
      await page.context().close();
    }
  }, 120_000);
});

describe("a report of skills with long names, in Chromium", () => {
  it("draws every name and detail line inside its box, the longest name a skill may have too", async () => {
    const root = await tempDir("gamma-prompt-report-long-names");
    await runCliInProcess("init", root);
    // A name as real collections write them, and the longest a name may be, in the widest letters.
    const names = ["finishing-a-development-branch", "verification-before-completion", `${"m".repeat(31)}-${"w".repeat(32)}`];
    for (const name of names) {
      const folder = join(root, "skills", name);
      execFileSync("mkdir", ["-p", folder]);
      await writeFile(join(folder, "SKILL.md"), `---\nname: ${name}\ndescription: Use when the report draws a long name.\nmetadata:\n  gamma-type: reference\n---\n\n# Long name\n\n- Term: what it means.\n`);
    }
    expect((await runCliInProcessFrom(root, "build")).code).toBe(0);
    const reportFile = join(root, "report.html");
    expect((await runCliInProcessFrom(root, "report", "--output", reportFile)).code).toBe(0);
    const { page } = await openReport(reportFile, 1280);
    try {
      const drawn = await page.$$eval("svg.graph g.node", (nodes) =>
        nodes.map((node) => {
          const box = (node.querySelector("rect") as SVGGraphicsElement).getBBox();
          const texts = [...node.querySelectorAll("text.node-title, text.node-detail")].map((text) => (text as SVGGraphicsElement).getBBox());
          return { title: node.querySelector("text.node-title")?.textContent ?? "", overflow: Math.max(...texts.map((text) => text.x + text.width - (box.x + box.width))) };
        }),
      );
      expect(drawn.map((node) => node.title)).toEqual(expect.arrayContaining(names));
      // Every text ends inside its box, with room to spare from the border.
      for (const node of drawn) expect(node.overflow, node.title).toBeLessThan(-4);
    } finally {
      await page.context().close();
    }
  }, 120_000);
});
