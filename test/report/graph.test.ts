/**
 * The skills graph's geometry, read back from the SVG it draws: no line
 * runs through a box, every line starts and ends on the two boxes it
 * connects (so a reader can follow it), arrowheads touch the box they point
 * to, and the same view gives the same bytes.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SkillsView, SkillView } from "../../src/report/model.js";
import { collectReport } from "../../src/report/report.js";
import { skillsGraphSvg } from "../../src/report/svg.js";
import { repoRoot } from "../build/helpers.js";

interface Box {
  title: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

interface Line {
  kind: string;
  arrow: boolean;
  /** Points along the line, curves sampled finely. */
  points: Array<[number, number]>;
  /** The direction the line arrives in (the last control point to the end). */
  arrival: [number, number];
}

function readBoxes(svg: string): Box[] {
  return [...svg.matchAll(/<g class="node [^"]*"><rect x="([\d.-]+)" y="([\d.-]+)" width="([\d.]+)" height="([\d.]+)"[^>]*\/><text class="node-title"[^>]*>([^<]*)<\/text>/g)].map((match) => ({
    title: match[5]!,
    x: Number(match[1]),
    y: Number(match[2]),
    width: Number(match[3]),
    height: Number(match[4]),
  }));
}

function readLines(svg: string): Line[] {
  return [...svg.matchAll(/<path class="edge-(\w+)" d="([^"]*)"( marker-end="url\(#arrow\)")?\/>/g)].map((match) => {
    const points: Array<[number, number]> = [];
    let arrival: [number, number] = [0, 0];
    for (const command of match[2]!.matchAll(/([MLC])([^MLC]*)/g)) {
      const values = (command[2]!.match(/-?[\d.]+/g) ?? []).map(Number);
      if (command[1] === "C") {
        const [x0, y0] = points[points.length - 1]!;
        const [x1, y1, x2, y2, x3, y3] = values as [number, number, number, number, number, number];
        for (let step = 1; step <= 200; step++) {
          const t = step / 200;
          const u = 1 - t;
          points.push([u * u * u * x0 + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t * t * t * x3, u * u * u * y0 + 3 * u * u * t * y1 + 3 * u * t * t * y2 + t * t * t * y3]);
        }
        arrival = [x3 - x2, y3 - y2];
      } else {
        const [x0, y0] = points[points.length - 1] ?? [values[0]!, values[1]!];
        points.push([values[0]!, values[1]!]);
        arrival = [values[0]! - x0, values[1]! - y0];
      }
    }
    return { kind: match[1]!, arrow: match[3] !== undefined, points, arrival };
  });
}

/** Whether the segment from a to b enters the inside of the box (its border, half a pixel deep, excluded). */
function crosses(a: [number, number], b: [number, number], box: Box): boolean {
  const [left, right, top, bottom] = [box.x + 0.5, box.x + box.width - 0.5, box.y + 0.5, box.y + box.height - 0.5];
  let from = 0;
  let to = 1;
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  for (const [p, q] of [
    [-dx, a[0] - left],
    [dx, right - a[0]],
    [-dy, a[1] - top],
    [dy, bottom - a[1]],
  ] as const) {
    if (p === 0) {
      if (q <= 0) return false;
      continue;
    }
    const r = q / p;
    if (p < 0) from = Math.max(from, r);
    else to = Math.min(to, r);
    if (from >= to) return false;
  }
  return true;
}

/** The box whose left or right side (within two pixels outside it) holds the point. */
function boxAt(point: [number, number], boxes: readonly Box[]): Box | undefined {
  const [x, y] = point;
  return boxes.find((box) => y > box.y && y < box.y + box.height && ((x >= box.x - 2 && x <= box.x) || (x >= box.x + box.width && x <= box.x + box.width + 2)));
}

/** What the view says the drawing must connect: "kind from>to" (conflicts in name order). */
function expectedLinks(view: SkillsView): string[] {
  const names = new Set(view.skills.map((skill) => skill.name));
  const links = new Set<string>();
  for (const variant of view.variants) for (const skill of variant.preloads) if (names.has(skill)) links.add(`preload ${variant.name}>${skill}`);
  for (const skill of view.skills) {
    for (const required of skill.requires) if (names.has(required)) links.add(`requires ${skill.name}>${required}`);
    for (const other of skill.conflicts) if (names.has(other)) links.add(`conflict ${[skill.name, other].sort().join(">")}`);
  }
  return [...links].sort();
}

/** Checks the drawing of a view and returns its boxes and lines. */
function checkDrawing(view: SkillsView): { boxes: Box[]; lines: Line[] } {
  const svg = skillsGraphSvg(view);
  expect(skillsGraphSvg(view)).toBe(svg);
  const boxes = readBoxes(svg);
  expect(boxes.map((box) => box.title).sort()).toEqual([...view.variants.map((variant) => variant.name), ...view.skills.map((skill) => skill.name)].sort());
  const [width, height] = [Number(/ width="([\d.]+)"/.exec(svg)![1]), Number(/ height="([\d.]+)"/.exec(svg)![1])];
  // No two boxes overlap, and every box lies inside the drawing.
  for (const box of boxes) {
    expect(box.x >= 0 && box.y >= 0 && box.x + box.width <= width && box.y + box.height <= height, box.title).toBe(true);
    for (const other of boxes) if (other !== box) expect(crosses([box.x, box.y], [box.x + box.width, box.y + box.height], other), `${box.title} on ${other.title}`).toBe(false);
  }
  const lines = readLines(svg);
  const drawn: string[] = [];
  for (const line of lines) {
    const name = `${line.kind} line from ${line.points[0]!.join(",")} to ${line.points[line.points.length - 1]!.join(",")}`;
    // No part of the line enters a box, neither one it connects nor another.
    const through = new Set<string>();
    for (let index = 1; index < line.points.length; index++) {
      for (const box of boxes) if (crosses(line.points[index - 1]!, line.points[index]!, box)) through.add(box.title);
    }
    expect([...through], `${name} runs through`).toEqual([]);
    const start = boxAt(line.points[0]!, boxes);
    const end = boxAt(line.points[line.points.length - 1]!, boxes);
    expect(start, `${name} starts on no box`).toBeDefined();
    expect(end, `${name} ends on no box`).toBeDefined();
    if (line.arrow) {
      // The arrowhead's tip (the path's end, refX at the tip) touches the box's left side, arriving head-on.
      const [x, y] = line.points[line.points.length - 1]!;
      expect(x, name).toBeGreaterThanOrEqual(end!.x - 2);
      expect(x, name).toBeLessThanOrEqual(end!.x);
      expect(y > end!.y + 4 && y < end!.y + end!.height - 4, name).toBe(true);
      expect(line.arrival[1], name).toBe(0);
      expect(line.arrival[0], name).toBeGreaterThan(0);
      drawn.push(`${line.kind} ${start!.title}>${end!.title}`);
    } else drawn.push(`${line.kind} ${[start!.title, end!.title].sort().join(">")}`);
  }
  expect(drawn.sort()).toEqual(expectedLinks(view));
  expect(svg).toContain('refX="10"');
  return { boxes, lines };
}

/** A reproducible generator (no Math.random): 30 skills over six levels, lines of every length. */
function generated(): SkillsView {
  let state = 20_261_206;
  const next = (limit: number): number => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return Math.floor((state / 2_147_483_648) * limit);
  };
  const levels = 6;
  const skills: SkillView[] = [];
  for (let index = 0; index < 30; index++) {
    const name = `skill-${String(index).padStart(2, "0")}`;
    skills.push({ name, type: index % 3 === 0 ? "reference" : "workflow", tokens: 100 + index, requires: [], conflicts: [], preloadedBy: [], linted: false, findings: [] });
  }
  const level = (index: number) => index % levels;
  for (const [index, skill] of skills.entries()) {
    if (level(index) === 0) continue;
    // One requirement one level down keeps the level; others reach further down (long lines).
    const below = skills.filter((_, other) => level(other) === level(index) - 1);
    skill.requires.push(below[next(below.length)]!.name);
    for (let extra = next(3); extra > 0; extra--) {
      const deeper = skills.filter((_, other) => level(other) < level(index) - 1);
      if (deeper.length === 0) break;
      const chosen = deeper[next(deeper.length)]!.name;
      if (!skill.requires.includes(chosen)) skill.requires.push(chosen);
    }
  }
  const conflicts: Array<[number, number]> = [
    [5, 11],
    [1, 4],
    [7, 8],
    [2, 14],
    [0, 29],
    [23, 3],
  ];
  for (const [a, b] of conflicts) {
    skills[a]!.conflicts.push(skills[b]!.name);
    skills[b]!.conflicts.push(skills[a]!.name);
  }
  const variants = [
    { name: "base", tokens: 2000, preloads: [] as string[] },
    { name: "deep", tokens: 2500, preloads: ["skill-05", "skill-11"] },
    { name: "shallow", tokens: 2100, preloads: ["skill-00", "skill-06"] },
    { name: "middle", tokens: 2300, preloads: ["skill-02", "skill-15", "skill-28"] },
  ];
  for (const variant of variants) for (const name of variant.preloads) skills.find((skill) => skill.name === name)!.preloadedBy.push(variant.name);
  return { variants, skills, otherFindings: [] };
}

describe("the report's skills graph", () => {
  it("routes a preload that spans a column around the box in between, and draws a conflict between two columns from one box to the other", () => {
    const view = JSON.parse(readFileSync(join(repoRoot, "test/fixtures/report-graph/preload-across-a-column.json"), "utf8")) as SkillsView;
    const { boxes, lines } = checkDrawing(view);
    // disputes preloads dispute-escalation, two columns to its right, past refund-request.
    const box = (title: string) => boxes.find((entry) => entry.title === title)!;
    expect(box("refund-request").x).toBeGreaterThan(box("disputes").x);
    expect(box("dispute-escalation").x).toBeGreaterThan(box("refund-request").x);
    expect(lines.filter((line) => line.kind === "conflict")).toHaveLength(1);
  });

  it("draws the embedded default with no line through a box", async () => {
    const data = await collectReport({ root: repoRoot, lint: false });
    checkDrawing(data.skills);
  });

  it("draws 30 skills with long and short requirements, preloads and conflicts with no line through a box", () => {
    const view = generated();
    const { lines } = checkDrawing(view);
    // The generated graph does have lines across several columns and conflicts within one column.
    const boxes = readBoxes(skillsGraphSvg(view));
    const columns = new Set(boxes.map((box) => box.x));
    expect(columns.size).toBe(7);
    expect(lines.some((line) => line.points[line.points.length - 1]![0] - line.points[0]![0] > 500)).toBe(true);
    expect(lines.some((line) => line.kind === "conflict" && line.points[line.points.length - 1]![0] === line.points[0]![0])).toBe(true);
  });

  it("draws a view with no variants, and one with no skills", () => {
    const view = generated();
    checkDrawing({ ...view, variants: [], skills: view.skills.map((skill) => ({ ...skill, preloadedBy: [] })) });
    checkDrawing({ variants: view.variants.map((variant) => ({ ...variant, preloads: [] })), skills: [], otherFindings: [] });
  });
});
