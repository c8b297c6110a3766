// Clock-step detector (docs/definitions.md#clock-step-detector): the wall clock against the
// monotonic clock, interval by interval. A step is |Δwall − Δmono| > 100 µs + |Δmono|·500 ppm
// (integer ns), plus the wall reading's own resolution when the caller's clock is coarse. The
// runner reads the wall clock at the edge of Date.now()'s millisecond (src/core/clock/clock.ts),
// which is exact to ~0.1 µs: resolution 0.

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
  const allowance = 100_000 + Math.trunc((Math.abs(monoDeltaNs) * 500) / 1_000_000) + resolutionNs;
  return Math.abs(wallDeltaNs - monoDeltaNs) > allowance;
}
