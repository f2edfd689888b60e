/**
 * Debian's Chromium driven by playwright-core (never a downloaded browser),
 * and screenshot comparison against committed references with a tolerance
 * for font anti-aliasing.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import pixelmatch from "pixelmatch";
import { chromium, type Browser } from "playwright-core";
import { PNG } from "pngjs";
import { UPDATE_GOLDEN } from "../helpers/golden.js";

export const CHROMIUM_PATH = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium";

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`no Chromium at ${CHROMIUM_PATH}: install Debian's (apt-get install -y chromium) or set CHROMIUM_PATH`);
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

export interface ScreenshotComparison {
  /** Share of pixels that differ beyond anti-aliasing (rows only one image has count as differing). */
  differing: number;
  /** Where the diff image was written, when there was a difference. */
  diffFile?: string;
}

/**
 * Compares a PNG with the reference: pixels differing by more than a small
 * colour distance count, pixels pixelmatch recognises as anti-aliasing do
 * not. With UPDATE_GOLDEN=1 the reference is rewritten instead.
 */
export function compareWithReference(actual: Buffer, referenceFile: string, diffFile: string): ScreenshotComparison {
  if (UPDATE_GOLDEN) {
    mkdirSync(dirname(referenceFile), { recursive: true });
    writeFileSync(referenceFile, actual);
  }
  if (!existsSync(referenceFile)) throw new Error(`no reference screenshot ${referenceFile}: run with UPDATE_GOLDEN=1 and look at it before committing`);
  const a = PNG.sync.read(actual);
  const b = PNG.sync.read(readFileSync(referenceFile));
  const width = Math.min(a.width, b.width);
  const height = Math.min(a.height, b.height);
  const crop = (png: PNG): Buffer => {
    if (png.width === width && png.height === height) return png.data;
    const out = Buffer.alloc(width * height * 4);
    for (let y = 0; y < height; y++) png.data.copy(out, y * width * 4, y * png.width * 4, y * png.width * 4 + width * 4);
    return out;
  };
  const diff = new PNG({ width, height });
  const mismatched = pixelmatch(crop(a), crop(b), diff.data, width, height, { threshold: 0.15, includeAA: false });
  const total = Math.max(a.width * a.height, b.width * b.height);
  const missing = total - width * height;
  const differing = (mismatched + missing) / total;
  if (mismatched + missing === 0) return { differing };
  mkdirSync(dirname(diffFile), { recursive: true });
  writeFileSync(diffFile, PNG.sync.write(diff));
  writeFileSync(diffFile.replace(/\.png$/, ".actual.png"), actual);
  return { differing, diffFile };
}
