// When the arena reader looks at its epoll set (docs/definitions.md#receive-paths): whenever libuv
// finds a socket of the set ready (src/net/ready-wake.ts), and only then. Measured against a 1 ms
// poll, against readiness followed by 1 ms polls while they find datagrams, and against the poll
// taking over while readiness woke it more often than every 1 ms (bench:arena-wake, bench/README.md
// "Waking for datagrams"): a timer's wake-up costs ~60 µs of thread CPU on these VMs, a readiness
// wake ~25 µs with its reads, so readiness alone costs least at 25 viewers a thread, and at 200,
// where datagrams trickle in and it wakes more often, about what the poll costs.
// Where the readiness wake cannot run (and until it is set up) a timer polls every POLL_MS,
// doubling its interval after IDLE_POLLS empty polls up to IDLE_POLL_MS; the first ready socket
// brings back POLL_MS.
import { type ReadyWake, readyWake } from "../../net/ready-wake.ts";

/** The timer's interval while polls find datagrams (without the readiness wake), ms. */
const POLL_MS = 1;
/** Empty polls in a row before the interval doubles, and the longest interval. */
const IDLE_POLLS = 50;
const IDLE_POLL_MS = 32;

export class ArenaPace {
  private timer: NodeJS.Timeout | null = null;
  private intervalMs = POLL_MS;
  private emptyPolls = 0;
  /** the readiness wake once set up (null: the timer alone), or why it cannot run */
  private wake: ReadyWake | null = null;
  wakeReason: string | null = null;

  private readonly poll: () => void;

  /** `poll` looks at the set `epollFd`. */
  constructor(epollFd: number, poll: () => void) {
    this.poll = poll;
    // what came while it was set up wakes it at once: the set is level-triggered
    void readyWake(epollFd, poll).then((w) => {
      if (typeof w === "string") this.wakeReason = w;
      else {
        this.wake = w;
        this.stopTimer();
      }
    });
  }

  /** Whether the readiness wake runs (tests, diagnostics). */
  get onReadiness(): boolean {
    return this.wake !== null;
  }

  /** Whether libuv watches the set now (a set left ready wakes the thread again by itself). */
  get watching(): boolean {
    return this.wake !== null && this.timer === null;
  }

  /** The timer's interval now, ms (tests, diagnostics). */
  get pollMs(): number {
    return this.intervalMs;
  }

  /** A socket joined the set: its media is due (the timer alone: at the full rate). */
  added(): void {
    if (this.wake === null && (this.timer === null || this.intervalMs !== POLL_MS)) this.every(POLL_MS);
  }

  /** No more polls (bench:arena-wake's rounds; a thread's reader lives as long as the thread). */
  close(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.wake?.close();
    this.wake = null;
  }

  /** The set is empty: no timer. */
  emptied(): void {
    this.stopTimer();
  }

  /** After a poll that found `n` ready sockets. */
  polled(n: number): void {
    // woken by readiness: nothing to pace (libuv wakes it again while anything is unread)
    if (this.wake !== null) return;
    if (n > 0) {
      this.emptyPolls = 0;
      if (this.intervalMs !== POLL_MS) this.every(POLL_MS);
    } else if (++this.emptyPolls >= IDLE_POLLS && this.intervalMs < IDLE_POLL_MS) {
      this.every(Math.min(2 * this.intervalMs, IDLE_POLL_MS));
    }
  }

  private every(ms: number): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.intervalMs = ms;
    this.emptyPolls = 0;
    this.timer = setInterval(this.poll, ms);
    this.timer.unref();
  }

  /** The timer stops; readiness wakes the thread (where it runs). */
  private stopTimer(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.wake?.resume();
  }
}
