// The thread's event loop woken when an epoll set has something ready (docs/definitions.md#receive-paths),
// instead of a timer that looks every millisecond. Node cannot watch an arbitrary descriptor,
// but libuv watches a UDP socket's descriptor for readability and calls its handler when it is
// readable; so a dgram socket of ours is bound, libuv's reading of it stopped, its descriptor
// replaced by a duplicate of the epoll set's (dup2: the same epoll instance under the socket's
// number, which an epoll set of libuv's may watch as any descriptor), and reading started again.
// When a descriptor of our set is ready, libuv's epoll reports ours readable, libuv's recvmsg on
// it fails (not a socket) and the handle's onmessage runs with that error: our wake-up, with no
// timer and no thread of its own. libuv reads level-triggered: the wake comes again on the next
// turn of the loop while anything stays unread. Closing the socket closes the duplicate only.
import { createSocket, type Socket } from "node:dgram";
import { errorMessage } from "../core/errors.ts";
import { socketFd } from "./kernel.ts";
import { koffi as loadKoffi } from "./koffi.ts";

/** Switches a readiness wake on and off (off: the caller polls). */
export interface ReadyWake {
  /** libuv watches the set again (the next ready descriptor wakes the thread) */
  resume(): void;
  /** libuv stops watching it until resume() */
  pause(): void;
  close(): void;
}

type Handle = { recvStart(): number; recvStop(): number; onmessage: unknown };

function handleOf(socket: Socket): Handle | null {
  const sym = Object.getOwnPropertySymbols(socket).find((s) => s.description === "state symbol");
  const h =
    sym === undefined
      ? undefined
      : (socket as unknown as Record<symbol, { handle?: Partial<Handle> } | undefined>)[sym]?.handle;
  return typeof h?.recvStart === "function" && typeof h.recvStop === "function" ? (h as Handle) : null;
}

/**
 * Stops libuv reading a dgram socket until the returned resume is called (the built-in relay's
 * test-only pause); null when the handle is not reachable.
 */
export function pauseLibuvReading(socket: Socket): (() => void) | null {
  const h = handleOf(socket);
  if (h === null) return null;
  h.recvStop();
  return () => h.recvStart();
}

let dup2: ((from: number, to: number) => number) | string | null = null;

function dup2Fn(): ((from: number, to: number) => number) | string {
  if (dup2 !== null) return dup2;
  const k = loadKoffi();
  if (typeof k === "string") dup2 = k;
  else {
    try {
      dup2 = k.load("libc.so.6").func("int dup2(int from, int to)") as (a: number, b: number) => number;
    } catch (err) {
      dup2 = `libc's dup2 not reachable through koffi (${errorMessage(err).split("\n")[0]})`;
    }
  }
  return dup2;
}

/**
 * Calls `onReady` on this thread's event loop whenever the epoll set `epollFd` has a ready
 * descriptor (while resumed; it starts resumed). Resolves to the switch, or why it cannot run.
 */
export async function readyWake(epollFd: number, onReady: () => void): Promise<ReadyWake | string> {
  const d = dup2Fn();
  if (typeof d === "string") return d;
  const socket = createSocket("udp4");
  const bound = await new Promise<string | null>((resolve) => {
    socket.once("error", (err) => resolve(errorMessage(err)));
    socket.bind(0, "127.0.0.1", () => resolve(null));
  });
  const handle = handleOf(socket);
  const fd = socketFd(socket);
  if (bound !== null || handle === null || fd < 0) {
    socket.close();
    return bound ?? "the wake socket's handle or descriptor could not be read";
  }
  socket.unref();
  // libuv forgets the socket's descriptor (its epoll entry goes with the socket's file below)
  handle.recvStop();
  if (d(epollFd, fd) !== fd) {
    socket.close();
    return "dup2 of the epoll set onto the wake socket failed";
  }
  // every "datagram" is the error of reading an epoll descriptor: the set is ready
  handle.onmessage = () => onReady();
  // a wake that libuv could still report as an error event is not one
  socket.on("error", () => {});
  let on = false;
  const wake: ReadyWake = {
    resume() {
      if (!on) handle.recvStart();
      on = true;
    },
    pause() {
      if (on) handle.recvStop();
      on = false;
    },
    close() {
      on = false;
      socket.close();
    },
  };
  wake.resume();
  return wake;
}
