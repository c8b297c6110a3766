// Clock-step detector (§6.8): the wall clock against the monotonic clock, interval by interval.
// A step is |Δwall − Δmono| > 100 µs + |Δmono|·500 ppm, plus the wall reading's own resolution
// (a 1 ms clock such as Date.now() can move 1 ms between two readings that are 0.1 ms apart).

export class StepWatch {
  private lastWallNs = Number.NaN;
  private lastMonoNs = Number.NaN;
  private readonly resolutionNs: number;
  stepDetected = false;

  constructor(resolutionNs = 0) {
    this.resolutionNs = resolutionNs;
  }

  observe(wallNs: number, monoNs: number): void {
    if (
      !Number.isNaN(this.lastWallNs) &&
      isStep(wallNs - this.lastWallNs, monoNs - this.lastMonoNs, this.resolutionNs)
    ) {
      this.stepDetected = true;
    }
    this.lastWallNs = wallNs;
    this.lastMonoNs = monoNs;
  }
}

export function isStep(wallDeltaNs: number, monoDeltaNs: number, resolutionNs = 0): boolean {
  const allowance = 100_000 + Math.abs(monoDeltaNs) * 500e-6 + resolutionNs;
  return Math.abs(wallDeltaNs - monoDeltaNs) > allowance;
}
