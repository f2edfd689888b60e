/** What a caught value says: an Error's message, or the value itself as text (a thrown string, a rejection with no Error). */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
