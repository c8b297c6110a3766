// The environment that preloads a test module into a child process (NODE_OPTIONS=--import, kept
// after whatever NODE_OPTIONS this process has) and hands it one variable.
export function preloadEnv(moduleUrl: string, name: string, value: string): Record<string, string> {
  const preload = `--import=${new URL(moduleUrl).href}`;
  const inherited = process.env["NODE_OPTIONS"] ?? "";
  return { NODE_OPTIONS: inherited === "" ? preload : `${inherited} ${preload}`, [name]: value };
}
