/**
 * What the body rules need to know about a skill body: its ordered lists
 * (checklists), where they start, and which of their steps verify. Lines and
 * columns are 1-based positions in SKILL.md.
 */
export interface OrderedListShape {
  line: number;
  column: number;
  /** `heading`: for a step heading, the title its text carries after the step number (see step-headings.ts). */
  items: Array<{ line: number; verifies: boolean; heading?: string }>;
}

/**
 * Words that make a step a verification step. Whole words only, so
 * "testimonial" or "latest" do not count; letters and digits bound a word,
 * anything else (spaces, `*`, `_`, backticks) does not.
 */
const VERIFICATION_WORD =
  /(?<![\p{L}\p{N}])(?:verif(?:y|ies|ied|ying|ication)|check(?:s|ed|ing)?|inspect(?:s|ed|ing|ion)?|confirm(?:s|ed|ing|ation)?|review(?:s|ed|ing)?|validat(?:e|es|ed|ing|ion)|ensur(?:e|es|ed|ing)|test(?:s|ed|ing)?|assert(?:s|ed|ing)?)(?![\p{L}\p{N}])/iu;

export function verifies(stepText: string): boolean {
  return VERIFICATION_WORD.test(stepText);
}

/**
 * A cheap and certain negative: every ordered list item starts on a line
 * whose first characters, after container markers, are digits and `.` or `)`.
 * When no line looks like that, the body has no ordered list at all.
 */
export function mayContainOrderedList(body: string): boolean {
  return /^[ \t>*+-]*\d{1,9}[.)](?:[ \t]|$)/m.test(body);
}
