import { verifies, type OrderedListShape } from "./body-shape.js";

/**
 * The full GitHub-flavoured Markdown parse (unified + remark-parse +
 * remark-gfm + remark-frontmatter) of a whole SKILL.md, for bodies the line
 * scanner does not model: skills are written in GFM (tables, task lists,
 * footnotes, strikethrough). Loaded on
 * first use: most bodies never need it, and importing it costs start-up time.
 */
interface MdNode {
  type: string;
  ordered?: boolean | null;
  value?: string;
  alt?: string | null;
  children?: MdNode[];
  position?: { start: { line: number; column: number } };
}

type Parse = (text: string) => MdNode;
let parser: Promise<Parse> | undefined;

async function loadParser(): Promise<Parse> {
  const [{ unified }, { default: remarkParse }, { default: remarkGfm }, { default: remarkFrontmatter }] = await Promise.all([
    import("unified"),
    import("remark-parse"),
    import("remark-gfm"),
    import("remark-frontmatter"),
  ]);
  const processor = unified().use(remarkParse).use(remarkGfm).use(remarkFrontmatter, ["yaml"]);
  return (text) => processor.parse(text) as unknown as MdNode;
}

/** Ordered lists of the document that start at or after `fromLine`, in document order. */
export async function parseOrderedLists(fullText: string, fromLine: number): Promise<OrderedListShape[]> {
  parser ??= loadParser();
  const tree = (await parser)(fullText);
  const lists: OrderedListShape[] = [];
  const visit = (node: MdNode): void => {
    if (node.type === "list" && node.ordered && node.position && node.position.start.line >= fromLine) {
      lists.push({
        line: node.position.start.line,
        column: node.position.start.column,
        items: (node.children ?? []).map((item) => ({ line: item.position?.start.line ?? node.position?.start.line ?? fromLine, verifies: verifies(textOf(item)) })),
      });
    }
    for (const child of node.children ?? []) visit(child);
  };
  visit(tree);
  return lists;
}

const INLINE_CONTAINERS = new Set(["paragraph", "heading", "emphasis", "strong", "delete", "link", "linkReference", "tableCell"]);

/** The text of a node; block children are joined by line breaks so words never fuse across blocks. */
function textOf(node: MdNode): string {
  if (typeof node.value === "string") return node.value;
  if (node.type === "break") return "\n";
  if (node.type === "image" || node.type === "imageReference") return node.alt ?? "";
  const children = node.children ?? [];
  return children.map(textOf).join(INLINE_CONTAINERS.has(node.type) ? "" : "\n");
}
