import { afterEach, beforeEach } from "vitest";

/**
 * Call at the top of a test file: the promise rejections nobody handled
 * during each test, collected (a test expects none), instead of failing the
 * run somewhere later.
 */
export function collectUnhandledRejections(): unknown[] {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on("unhandledRejection", onUnhandled);
  });
  afterEach(() => {
    process.off("unhandledRejection", onUnhandled);
  });
  return unhandled;
}
