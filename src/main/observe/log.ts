// Human progress lines on stderr, `HH:MM:SS␠␠message` in local time
// (docs/definitions.md#command-line). Data goes to files and stdout; nothing here may carry a URL
// path, query, userinfo or token.
export interface Logger {
  line(message: string): void;
}

function two(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

export function stderrLogger(quiet = false): Logger {
  return {
    line(message: string): void {
      if (quiet) return;
      const d = new Date();
      process.stderr.write(
        `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}  ${message}\n`,
      );
    },
  };
}

/** A logger that keeps lines in memory (tests). */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, line: (m) => lines.push(m) };
}
