// Who receives what comes from one IPv4 source (address, port) on a socket several viewers share
// (src/workers/receive/socket-sharing.ts): a table keyed by port, a short chain per port.

interface Entry<T> {
  ip: number;
  owner: T;
  next: Entry<T> | null;
}

export class SourceTable<T> {
  private readonly byPort = new Map<number, Entry<T>>();

  /** Who receives from (ip, port), or null. */
  find(ip: number, port: number): T | null {
    for (let e = this.byPort.get(port) ?? null; e !== null; e = e.next) if (e.ip === ip) return e.owner;
    return null;
  }

  /** `owner` receives from (ip, port) from now on (the caller checked that nobody did). */
  add(ip: number, port: number, owner: T): void {
    this.byPort.set(port, { ip, owner, next: this.byPort.get(port) ?? null });
  }

  /** `owner` no longer receives from (ip, port). */
  remove(ip: number, port: number, owner: T): void {
    let prev: Entry<T> | null = null;
    for (let e = this.byPort.get(port) ?? null; e !== null; prev = e, e = e.next) {
      if (e.ip !== ip || e.owner !== owner) continue;
      if (prev !== null) prev.next = e.next;
      else if (e.next !== null) this.byPort.set(port, e.next);
      else this.byPort.delete(port);
      return;
    }
  }
}
