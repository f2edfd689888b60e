/** Exit codes CI can rely on. */
export const EXIT_OK = 0;
/** Errors found, warnings over --max-warnings, or dist/ out of date. */
export const EXIT_FAILURE = 1;
/** Bad usage or an internal error. */
export const EXIT_USAGE = 2;
