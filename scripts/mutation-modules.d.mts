/** Types of mutation-modules.mjs for the tests that import it. */
export interface MutationModule {
  /** Source files Stryker mutates. */
  mutate: string[];
  /** The only test files it runs against them. */
  tests: string[];
}

export declare const MUTATION_MODULES: Record<string, MutationModule>;
