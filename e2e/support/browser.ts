import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { ROOT } from './server';

export const SCREENSHOT_DIR = path.join(ROOT, '.tmp/screenshots');

/** Debian's Chromium, headless, with nothing that reaches for the internet. */
export async function launchBrowser(): Promise<Browser> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export const screenshotPath = (name: string) => path.join(SCREENSHOT_DIR, `${name}.png`);
