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

/** The narrowest box; a box is wider when its skill's name needs it (see drawnWidth). */
const NODE_WIDTH = 200;
/** Room between a box's border and its text, on either side. */
const NODE_PADDING = 12;
/**
 * Advance widths in em of Arial Bold, which Liberation Sans (the fonts the page is checked with) matches
 * metric for metric; the other sans-serif fonts of the page's stack are close to it. A character not
 * listed counts as an em (wide letters, CJK), so a name is never drawn wider than its box.
 */
const BOLD_ADVANCE: Readonly<Record<string, number>> = {
  ...Object.fromEntries([..."abcdeghknopqsuvxy"].map((char) => [char, 0.611])),
  ...Object.fromEntries([..."fjt-:;!()[] ".split("")].map((char) => [char, 0.333])),
  ...Object.fromEntries([..."0123456789_$#"].map((char) => [char, 0.556])),
  ...Object.fromEntries([..."ABCDEFGHJKLNOPQRSTUVXYZ"].map((char) => [char, 0.778])),
  i: 0.278, l: 0.278, ".": 0.278, ",": 0.278, "'": 0.278, "/": 0.278, I: 0.278, r: 0.389, z: 0.5, m: 0.889, w: 0.778, M: 0.833, W: 0.944, "·": 0.333,
};

/** Arial's regular advances are about 7% narrower than its bold ones, letter for letter; none is wider. */
const REGULAR_SHARE = 0.93;

/** How wide `text` is drawn at `fontSize` px, at most. */
function drawnWidth(text: string, fontSize: number, weight: "bold" | "regular"): number {
  let ems = 0;
  for (const char of text) ems += BOLD_ADVANCE[char] ?? 1;
  return ems * fontSize * (weight === "bold" ? 1 : REGULAR_SHARE);
}
const NODE_HEIGHT = 52;
const COLUMN_GAP = 90;
const ROW_GAP = 18;
const MARGIN = 12;
/** Room a line takes when it crosses a column between two boxes (a lane). */
const LANE_HEIGHT = 4;
/** Conflict lines meet a box this far below its middle, apart from the arrows that arrive at the middle. */
const CONFLICT_PORT = 14;
/** Rounds of crossing reduction and of straightening. */
const ORDER_SWEEPS = 8;
const STRAIGHTEN_SWEEPS = 8;

interface Node {
  id: string;
  kind: "variant" | "workflow" | "reference";
  title: string;
  detail: string;
  findings: { errors: number; warnings: number };
  x: number;
  y: number;
}

/** A place in a column: a box, or a lane that carries a longer line across the column. */
interface Slot {
  id: string;
  column: number;
  node?: Node;
  height: number;
  /** Vertical middle. */
  center: number;
}

interface Edge {
  kind: "preload" | "requires" | "conflict";
  /** The slots the line goes through, left to right: a box, lanes, a box. */
  slots: Slot[];
}

/** Code-unit order (never the locale's), so the same names give the same drawing everywhere. */
function byId(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Centers in a column, kept in their order and at least `gap` apart, as
 * close as possible to the wanted ones (least squares: pool adjacent
 * violators on the centers less their minimal offsets).
 */
function placeInOrder(wanted: readonly number[], gaps: readonly number[]): number[] {
  const offsets: number[] = [0];
  for (let index = 1; index < wanted.length; index++) offsets.push(offsets[index - 1]! + gaps[index - 1]!);
  const blocks: Array<{ sum: number; size: number }> = [];
  wanted.forEach((value, index) => {
    blocks.push({ sum: value - offsets[index]!, size: 1 });
    while (blocks.length > 1 && blocks[blocks.length - 2]!.sum / blocks[blocks.length - 2]!.size > blocks[blocks.length - 1]!.sum / blocks[blocks.length - 1]!.size) {
      const last = blocks.pop()!;
      blocks[blocks.length - 1]!.sum += last.sum;
      blocks[blocks.length - 1]!.size += last.size;
    }
  });
  const placed: number[] = [];
  for (const block of blocks) for (let count = 0; count < block.size; count++) placed.push(block.sum / block.size + offsets[placed.length]!);
  return placed;
}

/**
 * Columns: variants, then skills by how deep their requirements go (a skill
 * sits left of every skill it requires). Edges: requires (solid arrow),
 * preloads (from a variant, dotted), conflicts (dashed, no arrow). A line
 * that spans several columns crosses each column in a lane of its own
 * between the boxes, so no line runs through a box it does not connect; the
 * boxes and lanes of each column are ordered to cut crossings (ties by
 * name) and moved to straighten the lines.
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
  const offset = hasVariants ? 1 : 0;
  const wantedColumn = new Map<string, number>();
  const nodes = new Map<string, Node>();
  for (const variant of view.variants) {
    const id = `v:${variant.name}`;
    nodes.set(id, { id, kind: "variant", title: variant.name, detail: `variant · ${count(variant.tokens)} prompt tokens`, findings: { errors: 0, warnings: 0 }, x: 0, y: 0 });
    wantedColumn.set(id, 0);
  }
  for (const skill of view.skills) {
    const id = `s:${skill.name}`;
    const detail = `${skill.type} · ${count(skill.tokens)} tok${skill.checklistSteps === undefined ? "" : ` · ${skill.checklistSteps} steps`}`;
    const errors = skill.findings.filter((finding) => finding.severity === "error").length;
    nodes.set(id, { id, kind: skill.type, title: skill.name, detail, findings: { errors, warnings: skill.findings.length - errors }, x: 0, y: 0 });
    wantedColumn.set(id, offset + deepest - (depth.get(skill.name) ?? 0));
  }
  // Every box as wide as the widest name needs (a title is 13 px bold, the detail line 12 px), and never narrower than NODE_WIDTH.
  const nodeWidth = Math.max(NODE_WIDTH, ...[...nodes.values()].map((node) => Math.ceil(2 * NODE_PADDING + Math.max(drawnWidth(node.title, 13, "bold"), drawnWidth(node.detail, 12, "regular")))));
  // Empty columns (none are expected) are closed up.
  const used = [...new Set(wantedColumn.values())].sort((a, b) => a - b);
  const columns: Slot[][] = used.map(() => []);
  const slots = new Map<string, Slot>();
  for (const node of nodes.values()) {
    const column = used.indexOf(wantedColumn.get(node.id)!);
    const slot: Slot = { id: node.id, column, node, height: NODE_HEIGHT, center: 0 };
    columns[column]!.push(slot);
    slots.set(node.id, slot);
  }

  // Lines between columns; one spanning several columns gets a lane in each column it crosses.
  const edges: Edge[] = [];
  const sideways: Array<[Slot, Slot]> = [];
  const seen = new Set<string>();
  const connect = (kind: Edge["kind"], fromId: string, toId: string) => {
    const from = slots.get(fromId);
    const to = slots.get(toId);
    const key = `${kind}:${fromId}>${toId}`;
    if (!from || !to || seen.has(key)) return;
    seen.add(key);
    if (from.column === to.column) {
      if (kind === "conflict") sideways.push([from, to]);
      return;
    }
    // Requirements point right (a cycle's way back is left out); a conflict is drawn left to right.
    if (from.column > to.column && kind !== "conflict") return;
    const [left, right] = from.column < to.column ? [from, to] : [to, from];
    const path: Slot[] = [left];
    for (let column = left.column + 1; column < right.column; column++) {
      const lane: Slot = { id: `~${key}@${column}`, column, height: LANE_HEIGHT, center: 0 };
      columns[column]!.push(lane);
      path.push(lane);
    }
    path.push(right);
    edges.push({ kind, slots: path });
  };
  for (const variant of view.variants) for (const skill of variant.preloads) connect("preload", `v:${variant.name}`, `s:${skill}`);
  for (const skill of view.skills) for (const required of skill.requires) connect("requires", `s:${skill.name}`, `s:${required}`);
  for (const skill of view.skills) for (const other of skill.conflicts) if (byId(skill.name, other) < 0) connect("conflict", `s:${skill.name}`, `s:${other}`);

  // Neighbours of each slot in the column to its left and to its right.
  const leftOf = new Map<Slot, Slot[]>();
  const rightOf = new Map<Slot, Slot[]>();
  for (const edge of edges) {
    for (let index = 1; index < edge.slots.length; index++) {
      const a = edge.slots[index - 1]!;
      const b = edge.slots[index]!;
      (rightOf.get(a) ?? rightOf.set(a, []).get(a)!).push(b);
      (leftOf.get(b) ?? leftOf.set(b, []).get(b)!).push(a);
    }
  }

  // Order: barycentres of the neighbours' places, sweeping right then left; the order with the fewest crossings wins.
  const crossings = (): number => {
    let total = 0;
    for (let column = 0; column + 1 < columns.length; column++) {
      const place = (slot: Slot) => columns[slot.column]!.indexOf(slot);
      const pairs = columns[column]!.flatMap((slot) => (rightOf.get(slot) ?? []).map((other) => [place(slot), place(other)] as const));
      for (let i = 0; i < pairs.length; i++) for (let j = i + 1; j < pairs.length; j++) if ((pairs[i]![0] - pairs[j]![0]) * (pairs[i]![1] - pairs[j]![1]) < 0) total++;
    }
    return total;
  };
  let best = columns.map((column) => [...column]);
  let fewest = crossings();
  for (let sweep = 0; sweep < ORDER_SWEEPS && fewest > 0; sweep++) {
    const rightward = sweep % 2 === 0;
    const order = rightward ? columns.map((_, index) => index).slice(1) : columns.map((_, index) => index).reverse().slice(1);
    for (const index of order) {
      const neighbours = rightward ? leftOf : rightOf;
      const keys = new Map(
        columns[index]!.map((slot, place) => {
          const around = neighbours.get(slot) ?? [];
          const value = around.length === 0 ? place : around.reduce((sum, other) => sum + columns[other.column]!.indexOf(other), 0) / around.length;
          return [slot, value] as const;
        }),
      );
      columns[index]!.sort((a, b) => keys.get(a)! - keys.get(b)! || byId(a.id, b.id));
    }
    const now = crossings();
    if (now < fewest) {
      fewest = now;
      best = columns.map((column) => [...column]);
    }
  }
  best.forEach((column, index) => (columns[index] = column));

  // Heights: each column stacked, then its slots moved towards their neighbours (in order, never closer than the gap).
  const gaps = (column: Slot[]) => column.slice(1).map((slot, index) => (column[index]!.height + slot.height) / 2 + ROW_GAP);
  for (const column of columns) {
    const placed = placeInOrder(
      column.map(() => 0),
      gaps(column),
    );
    const middle = placed.length === 0 ? 0 : (placed[0]! + placed[placed.length - 1]!) / 2;
    column.forEach((slot, index) => (slot.center = placed[index]! - middle));
  }
  for (let sweep = 0; sweep < STRAIGHTEN_SWEEPS; sweep++) {
    const rightward = sweep % 2 === 0;
    const order = rightward ? columns.map((_, index) => index) : columns.map((_, index) => index).reverse();
    for (const index of order) {
      const column = columns[index]!;
      const between = gaps(column);
      const wanted = column.map((slot) => {
        const around = [...((rightward ? leftOf : rightOf).get(slot) ?? [])];
        // The last sweeps look both ways.
        if (sweep >= STRAIGHTEN_SWEEPS - 2) around.push(...((rightward ? rightOf : leftOf).get(slot) ?? []));
        return around.length === 0 ? undefined : around.reduce((sum, other) => sum + other.center, 0) / around.length;
      });
      // A slot with no line this way keeps close to the one above it (the first ones, to the one below them).
      const anchor = wanted.findIndex((value) => value !== undefined);
      if (anchor === -1) continue;
      for (let place = anchor + 1; place < column.length; place++) wanted[place] ??= wanted[place - 1]! + between[place - 1]!;
      for (let place = anchor - 1; place >= 0; place--) wanted[place] = wanted[place + 1]! - between[place]!;
      const placed = placeInOrder(wanted as number[], between);
      column.forEach((slot, index) => (slot.center = placed[index]!));
    }
  }
  const all = columns.flat();
  const top = all.length === 0 ? 0 : Math.min(...all.map((slot) => slot.center - slot.height / 2));
  const bottom = Math.max(NODE_HEIGHT, ...all.map((slot) => slot.center - top + slot.height / 2));
  for (const slot of all) slot.center = slot.center - top + MARGIN;
  const height = bottom + MARGIN * 2;
  const columnX = (index: number) => MARGIN + 30 + index * (nodeWidth + COLUMN_GAP);
  for (const slot of all) {
    if (!slot.node) continue;
    slot.node.x = columnX(slot.column);
    slot.node.y = slot.center - NODE_HEIGHT / 2;
  }
  const columnCount = Math.max(1, columns.length);
  const width = MARGIN * 2 + 30 + columnCount * nodeWidth + (columnCount - 1) * COLUMN_GAP;

  // A line leaves a box's right side and enters the next one's left side, crossing every column between in its lane.
  const lines = edges.map((edge) => {
    const port = edge.kind === "conflict" ? CONFLICT_PORT : 0;
    const arrow = edge.kind !== "conflict";
    const first = edge.slots[0]!;
    const last = edge.slots[edge.slots.length - 1]!;
    const points: Array<[number, number]> = [[columnX(first.column) + nodeWidth, first.center + port]];
    for (const lane of edge.slots.slice(1, -1)) points.push([columnX(lane.column), lane.center], [columnX(lane.column) + nodeWidth, lane.center]);
    // An arrowhead's tip touches the box's border.
    points.push([columnX(last.column) - (arrow ? 1 : 0), last.center + port]);
    let d = `M${n(points[0]![0])} ${n(points[0]![1])}`;
    for (let index = 1; index < points.length; index++) {
      const [x1, y1] = points[index - 1]!;
      const [x2, y2] = points[index]!;
      if (index % 2 === 0) d += `L${n(x2)} ${n(y2)}`;
      else {
        const bend = (x2 - x1) / 2;
        d += `C${n(x1 + bend)} ${n(y1)} ${n(x2 - bend)} ${n(y2)} ${n(x2)} ${n(y2)}`;
      }
    }
    return `<path class="edge-${edge.kind}" d="${d}"${arrow ? ' marker-end="url(#arrow)"' : ""}/>`;
  });
  // Conflicts within a column bow out into the gap to its left.
  for (const [a, b] of sideways) {
    const x = columnX(a.column);
    const ya = a.center + CONFLICT_PORT;
    const yb = b.center + CONFLICT_PORT;
    const reach = 26 + Math.min(20, Math.abs(yb - ya) / 12);
    lines.push(`<path class="edge-conflict" d="M${n(x)} ${n(ya)}C${n(x - reach)} ${n(ya)} ${n(x - reach)} ${n(yb)} ${n(x)} ${n(yb)}"/>`);
  }
  const boxes = all.flatMap((slot) => {
    const node = slot.node;
    if (!node) return [];
    const badge =
      node.findings.errors + node.findings.warnings === 0
        ? ""
        : `<g class="badge ${node.findings.errors > 0 ? "badge-error" : "badge-warning"}"><rect x="${n(node.x + nodeWidth - 30)}" y="${n(node.y - 8)}" width="38" height="18" rx="9"/><text x="${n(node.x + nodeWidth - 11)}" y="${n(node.y + 5)}" text-anchor="middle">${node.findings.errors + node.findings.warnings}</text></g>`;
    return [`<g class="node node-${node.kind}"><rect x="${n(node.x)}" y="${n(node.y)}" width="${nodeWidth}" height="${NODE_HEIGHT}" rx="8"/><text class="node-title" x="${n(node.x + NODE_PADDING)}" y="${n(node.y + 21)}">${escapeHtml(node.title)}</text><text class="node-detail" x="${n(node.x + NODE_PADDING)}" y="${n(node.y + 39)}">${escapeHtml(node.detail)}</text>${badge}</g>`];
  });
  const desc = [
    ...view.variants.map((variant) => `Variant ${variant.name} preloads ${variant.preloads.length === 0 ? "nothing" : variant.preloads.join(", ")}.`),
    ...view.skills.map((skill) => `${skill.name} (${skill.type}, ${count(skill.tokens)} tokens${skill.checklistSteps === undefined ? "" : `, ${skill.checklistSteps} checklist steps`})${skill.requires.length === 0 ? "" : ` requires ${skill.requires.join(", ")}`}${skill.conflicts.length === 0 ? "" : `; conflicts with ${skill.conflicts.join(", ")}`}${skill.findings.length === 0 ? "" : `; ${skill.findings.length} lint findings`}.`),
  ].join(" ");
  const defs = `<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" class="arrow-head"/></marker></defs>`;
  return `<svg class="graph" id="skills-graph" role="img" aria-labelledby="skills-graph-title skills-graph-desc" width="${n(width)}" height="${n(height)}" viewBox="0 0 ${n(width)} ${n(height)}">${accessible("skills-graph", "Skills graph: preloads, requirements and conflicts", desc)}${defs}${lines.join("")}${boxes.join("")}</svg>`;
}

/** A pass rate on a 0–100% axis: the interval as a band, the rate as a mark. */
export function rateSvg(id: string, label: string, value: Rate): string {
  const x = (share: number) => share * 200;
  // No run evaluated (stale, or no reply): nothing was measured, so no mark and no interval are drawn.
  if (value.runs === 0) return `<svg class="rate" id="${id}" role="img" aria-labelledby="${id}-title ${id}-desc" viewBox="0 0 200 16" preserveAspectRatio="none">${accessible(id, `Pass rate of ${label}`, "no run evaluated")}<rect class="rate-track" x="0" y="6" width="200" height="4"/></svg>`;
  const desc = `${value.passed} of ${value.runs} runs passed: ${percent0(value.rate)}, 95% interval ${percent0(value.interval[0])} to ${percent0(value.interval[1])}`;
  return `<svg class="rate" id="${id}" role="img" aria-labelledby="${id}-title ${id}-desc" viewBox="0 0 200 16" preserveAspectRatio="none">${accessible(id, `Pass rate of ${label}`, desc)}<rect class="rate-track" x="0" y="6" width="200" height="4"/><rect class="rate-interval" x="${n(x(value.interval[0]))}" y="3" width="${n(Math.max(1, x(value.interval[1]) - x(value.interval[0])))}" height="10" rx="2"/><rect class="rate-mark" x="${n(Math.min(197, Math.max(0, x(value.rate) - 1.5)))}" y="0" width="3" height="16"/></svg>`;
}
