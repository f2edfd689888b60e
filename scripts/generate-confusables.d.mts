/** Types of generate-confusables.mjs for the test that checks the generated table is current. */
export function confusableAsciiPairs(): Array<[string, string]>;
export function renderConfusablesModule(pairs?: Array<[string, string]>): string;
