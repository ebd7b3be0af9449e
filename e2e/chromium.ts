// Debian's Chromium (apt-get install chromium): Playwright cannot download browsers here.
// The flags and path every page the tests and benchmarks open is launched with.
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
