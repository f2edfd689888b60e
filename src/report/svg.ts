/**
 * The report's drawings as inline SVG strings: a variant's cache blocks to
 * scale, the skills graph, a pass rate with its interval. Every drawing is
 * `role="img"` with a <title> and <desc> (the page also gives each one a
 * table with the same figures). Coordinates are rounded to two decimals so
 * the bytes are the same on every machine.
 */
import { blockLabel, count, escapeHtml, percent0 } from "./format.js";
import type { SkillsView, VariantLayout } from "./model.js";
import type { Rate } from "../evals/stats.js";

/** Two decimals, no trailing zeros. */
function n(value: number): string {
  return String(Math.round(value * 100) / 100);
}

function accessible(id: string, title: string, desc: string): string {
  return `<title id="${id}-title">${escapeHtml(title)}</title><desc id="${id}-desc">${escapeHtml(desc)}</desc>`;
}

export interface BarSegment {
  name: string;
  /** Tokens before and after the segment. */
  from: number;
  to: number;
  /** A CSS class giving the fill (block kind or state). */
  fill: string;
  breakpoint: boolean;
}

/**
 * One bar in a 1000-unit-wide view box stretched to the container's width
 * (shapes only; the labels are HTML around it, so text never stretches).
 */
export function barSvg(id: string, segments: readonly BarSegment[], scale: number, title: string, desc: string): string {
  const x = (tokens: number) => (scale === 0 ? 0 : (tokens / scale) * 1000);
  const parts = segments.map((segment) => `<rect class="${segment.fill}" x="${n(x(segment.from))}" y="4" width="${n(Math.max(0, x(segment.to) - x(segment.from)))}" height="28"/>`);
  const marks = segments.filter((segment) => segment.breakpoint).map((segment) => `<line class="bp" x1="${n(x(segment.to))}" x2="${n(x(segment.to))}" y1="0" y2="36"/>`);
  return `<svg class="bar" id="${id}" role="img" aria-labelledby="${id}-title ${id}-desc" viewBox="-2 0 1004 36" preserveAspectRatio="none">${accessible(id, title, desc)}<rect class="track" x="0" y="4" width="1000" height="28"/>${parts.join("")}${marks.join("")}</svg>`;
}

/** The text alternative of a layout bar: every block with its tokens and breakpoint. */
export function describeLayout(variant: VariantLayout): string {
  return variant.blocks.map((block) => `${blockLabel(block.name)} ${count(block.tokens)} tokens (to ${count(block.cumulativeTokens)})${block.breakpoint ? ", cache breakpoint" : ""}`).join("; ");
}

const NODE_WIDTH = 200;
const NODE_HEIGHT = 52;
const COLUMN_GAP = 90;
const ROW_GAP = 18;
const MARGIN = 12;

interface Node {
  id: string;
  kind: "variant" | "workflow" | "reference";
  title: string;
  detail: string;
  findings: { errors: number; warnings: number };
  x: number;
  y: number;
}

/**
 * Columns: variants, then skills by how deep their requirements go (a skill
 * sits left of every skill it requires). Edges: requires (solid arrow),
 * preloads (from a variant, dotted), conflicts (dashed, both ways).
 */
export function skillsGraphSvg(view: SkillsView): string {
  const requires = new Map(view.skills.map((skill) => [skill.name, skill.requires]));
  const depth = new Map<string, number>();
  const depthOf = (name: string, seen: ReadonlySet<string>): number => {
    const known = depth.get(name);
    if (known !== undefined) return known;
    // A cycle (which lint reports) stops the walk rather than recursing forever.
    const below = (requires.get(name) ?? []).filter((other) => requires.has(other) && !seen.has(other)).map((other) => depthOf(other, new Set([...seen, other])));
    const value = below.length === 0 ? 0 : 1 + Math.max(...below);
    depth.set(name, value);
    return value;
  };
  for (const skill of view.skills) depthOf(skill.name, new Set([skill.name]));
  const deepest = Math.max(0, ...depth.values());
  const hasVariants = view.variants.length > 0;
  const columns: Node[][] = [];
  const column = (index: number): Node[] => (columns[index] ??= []);
  if (hasVariants) {
    for (const variant of view.variants) {
      column(0).push({ id: `v:${variant.name}`, kind: "variant", title: variant.name, detail: `variant · ${count(variant.tokens)} prompt tokens`, findings: { errors: 0, warnings: 0 }, x: 0, y: 0 });
    }
  }
  const offset = hasVariants ? 1 : 0;
  for (const skill of view.skills) {
    const detail = `${skill.type} · ${count(skill.tokens)} tok${skill.checklistSteps === undefined ? "" : ` · ${skill.checklistSteps} steps`}`;
    const errors = skill.findings.filter((finding) => finding.severity === "error").length;
    column(offset + deepest - (depth.get(skill.name) ?? 0)).push({ id: `s:${skill.name}`, kind: skill.type, title: skill.name, detail, findings: { errors, warnings: skill.findings.length - errors }, x: 0, y: 0 });
  }
  const filled = columns.filter((entries) => entries !== undefined);
  const rows = Math.max(1, ...filled.map((entries) => entries.length));
  const height = MARGIN * 2 + rows * NODE_HEIGHT + (rows - 1) * ROW_GAP;
  const nodes = new Map<string, Node>();
  filled.forEach((entries, index) => {
    const top = (height - (entries.length * NODE_HEIGHT + (entries.length - 1) * ROW_GAP)) / 2;
    entries.forEach((node, row) => {
      node.x = MARGIN + 30 + index * (NODE_WIDTH + COLUMN_GAP);
      node.y = top + row * (NODE_HEIGHT + ROW_GAP);
      nodes.set(node.id, node);
    });
  });
  const width = MARGIN * 2 + 30 + filled.length * NODE_WIDTH + (filled.length - 1) * COLUMN_GAP;
  const edges: string[] = [];
  const curve = (from: Node, to: Node, cls: string, marker: boolean) => {
    const x1 = from.x + NODE_WIDTH;
    const y1 = from.y + NODE_HEIGHT / 2;
    const x2 = to.x - (marker ? 4 : 0);
    const y2 = to.y + NODE_HEIGHT / 2;
    const bend = (x2 - x1) / 2;
    edges.push(`<path class="${cls}" d="M${n(x1)} ${n(y1)}C${n(x1 + bend)} ${n(y1)} ${n(x2 - bend)} ${n(y2)} ${n(x2)} ${n(y2)}"${marker ? ' marker-end="url(#arrow)"' : ""}/>`);
  };
  for (const variant of view.variants) {
    for (const skill of variant.preloads) {
      const from = nodes.get(`v:${variant.name}`);
      const to = nodes.get(`s:${skill}`);
      if (from && to) curve(from, to, "edge-preload", true);
    }
  }
  for (const skill of view.skills) {
    const from = nodes.get(`s:${skill.name}`);
    for (const required of skill.requires) {
      const to = nodes.get(`s:${required}`);
      if (from && to && to.x > from.x) curve(from, to, "edge-requires", true);
    }
    for (const other of skill.conflicts) {
      if (other <= skill.name) continue;
      const a = from;
      const b = nodes.get(`s:${other}`);
      if (!a || !b) continue;
      // Conflicts bow out to the left of both nodes.
      const ya = a.y + NODE_HEIGHT / 2;
      const yb = b.y + NODE_HEIGHT / 2;
      const reach = 26 + Math.min(20, Math.abs(yb - ya) / 12);
      edges.push(`<path class="edge-conflict" d="M${n(a.x)} ${n(ya)}C${n(a.x - reach)} ${n(ya)} ${n(b.x - reach)} ${n(yb)} ${n(b.x)} ${n(yb)}"/>`);
    }
  }
  const boxes = [...nodes.values()].map((node) => {
    const badge =
      node.findings.errors + node.findings.warnings === 0
        ? ""
        : `<g class="badge ${node.findings.errors > 0 ? "badge-error" : "badge-warning"}"><rect x="${n(node.x + NODE_WIDTH - 30)}" y="${n(node.y - 8)}" width="38" height="18" rx="9"/><text x="${n(node.x + NODE_WIDTH - 11)}" y="${n(node.y + 5)}" text-anchor="middle">${node.findings.errors + node.findings.warnings}</text></g>`;
    return `<g class="node node-${node.kind}"><rect x="${n(node.x)}" y="${n(node.y)}" width="${NODE_WIDTH}" height="${NODE_HEIGHT}" rx="8"/><text class="node-title" x="${n(node.x + 12)}" y="${n(node.y + 21)}">${escapeHtml(node.title)}</text><text class="node-detail" x="${n(node.x + 12)}" y="${n(node.y + 39)}">${escapeHtml(node.detail)}</text>${badge}</g>`;
  });
  const desc = [
    ...view.variants.map((variant) => `Variant ${variant.name} preloads ${variant.preloads.length === 0 ? "nothing" : variant.preloads.join(", ")}.`),
    ...view.skills.map((skill) => `${skill.name} (${skill.type}, ${count(skill.tokens)} tokens${skill.checklistSteps === undefined ? "" : `, ${skill.checklistSteps} checklist steps`})${skill.requires.length === 0 ? "" : ` requires ${skill.requires.join(", ")}`}${skill.conflicts.length === 0 ? "" : `; conflicts with ${skill.conflicts.join(", ")}`}${skill.findings.length === 0 ? "" : `; ${skill.findings.length} lint findings`}.`),
  ].join(" ");
  const defs = `<defs><marker id="arrow" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" class="arrow-head"/></marker></defs>`;
  return `<svg class="graph" id="skills-graph" role="img" aria-labelledby="skills-graph-title skills-graph-desc" width="${n(width)}" height="${n(height)}" viewBox="0 0 ${n(width)} ${n(height)}">${accessible("skills-graph", "Skills graph: preloads, requirements and conflicts", desc)}${defs}${edges.join("")}${boxes.join("")}</svg>`;
}

/** A pass rate on a 0–100% axis: the interval as a band, the rate as a mark. */
export function rateSvg(id: string, label: string, value: Rate): string {
  const x = (share: number) => share * 200;
  // No run evaluated (stale, or no reply): nothing was measured, so no mark and no interval are drawn.
  if (value.runs === 0) return `<svg class="rate" id="${id}" role="img" aria-labelledby="${id}-title ${id}-desc" viewBox="0 0 200 16" preserveAspectRatio="none">${accessible(id, `Pass rate of ${label}`, "no run evaluated")}<rect class="rate-track" x="0" y="6" width="200" height="4"/></svg>`;
  const desc = `${value.passed} of ${value.runs} runs passed: ${percent0(value.rate)}, 95% interval ${percent0(value.interval[0])} to ${percent0(value.interval[1])}`;
  return `<svg class="rate" id="${id}" role="img" aria-labelledby="${id}-title ${id}-desc" viewBox="0 0 200 16" preserveAspectRatio="none">${accessible(id, `Pass rate of ${label}`, desc)}<rect class="rate-track" x="0" y="6" width="200" height="4"/><rect class="rate-interval" x="${n(x(value.interval[0]))}" y="3" width="${n(Math.max(1, x(value.interval[1]) - x(value.interval[0])))}" height="10" rx="2"/><rect class="rate-mark" x="${n(Math.min(197, Math.max(0, x(value.rate) - 1.5)))}" y="0" width="3" height="16"/></svg>`;
}
