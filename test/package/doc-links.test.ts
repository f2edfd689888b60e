import { existsSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { docPage, manualPaths } from "../helpers/docs.js";

/**
 * Every relative link in README.md and the pages under docs/ leads somewhere:
 * to a file or folder of the repository and, with a `#fragment`, to a heading
 * or an `<a id>` of that page, as GitHub and the npm page render them.
 */

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** The text outside fenced code blocks and inline code spans, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, "").replace(/(`+)[\s\S]*?\1/g, "");
}

/** A heading's anchor as GitHub writes it: lower case, punctuation dropped, spaces as hyphens. */
function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]*>/g, "")
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, "")
    .replace(/ /g, "-");
}

/** Every anchor a page offers: its headings (a repeated one numbered -1, -2, …) and its explicit ids. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutFences = markdown.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, "");
  for (const match of withoutFences.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const slug = headingSlug((match[1] as string).replace(/`/g, ""));
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const match of markdown.matchAll(/<a (?:id|name)="([^"]+)"/g)) anchors.add(match[1] as string);
  return anchors;
}

/** The relative targets of a page's inline links and images and its reference definitions. */
function relativeTargets(markdown: string): string[] {
  const text = prose(markdown);
  const inline = [...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1] as string);
  const definitions = [...text.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/gm)].map((match) => match[1] as string);
  return [...inline, ...definitions].filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe("links in the manual", () => {
  const pages = manualPaths();

  it("covers README.md and the guide and reference pages", () => {
    expect(pages).toEqual(expect.arrayContaining(["README.md", "docs/guide/runtime.md", "docs/reference/cli.md"]));
  });

  it("derives anchors the way GitHub does", () => {
    expect(headingSlug("Start-up (npm run bench -- startup)")).toBe("start-up-npm-run-bench----startup");
    expect(headingSlug("dist/ as one transaction")).toBe("dist-as-one-transaction");
    expect(headingSlug("Fixing (--fix, --fix-dry-run)")).toBe("fixing---fix---fix-dry-run");
  });

  it("resolves every relative link to a file or folder, and every fragment to an anchor of its page", () => {
    const broken: string[] = [];
    for (const path of pages) {
      const page = docPage(path);
      for (const target of relativeTargets(page.text)) {
        const hash = target.indexOf("#");
        const file = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
        const fragment = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
        const resolved = file === "" ? path : normalize(join(dirname(path), file)).split("\\").join("/");
        const absolute = join(repoRoot, resolved);
        if (resolved.startsWith("..") || !existsSync(absolute)) {
          broken.push(`${path}: ${target} (no ${resolved})`);
          continue;
        }
        if (fragment === undefined) continue;
        if (!statSync(absolute).isFile() || !resolved.endsWith(".md")) {
          broken.push(`${path}: ${target} (a fragment on something that is not a Markdown page)`);
          continue;
        }
        if (!anchorsOf(docPage(resolved).text).has(fragment)) broken.push(`${path}: ${target} (no anchor #${fragment} in ${resolved})`);
      }
    }
    expect(broken).toEqual([]);
  });
});
