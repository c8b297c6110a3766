import { createRequire } from "node:module";
import dgram from "node:dgram";
const require = createRequire(import.meta.url);
const koffi = require("koffi");
const libc = koffi.load("libc.so.6");
const recvmmsg = libc.func("int recvmmsg(int fd, void *msgvec, unsigned int vlen, int flags, void *timeout)");
const setsockopt = libc.func("int setsockopt(int fd, int level, int name, void *val, unsigned int len)");
const epoll_create1 = libc.func("int epoll_create1(int flags)");
const epoll_ctl = libc.func("int epoll_ctl(int epfd, int op, int fd, void *ev)");
const epoll_wait = libc.func("int epoll_wait(int epfd, void *evs, int max, int timeout)");
const N = 32, SLOT = 2048, CTL = 64, NAME = 32;
const OFF_MSG = 0, OFF_IOV = OFF_MSG + 64 * N, OFF_NAME = OFF_IOV + 16 * N, OFF_CTL = OFF_NAME + NAME * N, OFF_DATA = OFF_CTL + CTL * N;
const TOTAL = OFF_DATA + SLOT * N;
const ptr = koffi.alloc("uint8_t", TOTAL);
const base = koffi.address(ptr);
console.log("base", base, typeof base);
const ab = koffi.view(ptr, TOTAL);
const dv = new DataView(ab);
const u8 = new Uint8Array(ab);
for (let i = 0; i < N; i++) {
  const m = OFF_MSG + 64 * i;
  dv.setBigUint64(m, base + BigInt(OFF_NAME + NAME * i), true);
  dv.setUint32(m + 8, NAME, true);
  dv.setBigUint64(m + 16, base + BigInt(OFF_IOV + 16 * i), true);
  dv.setBigUint64(m + 24, 1n, true);
  dv.setBigUint64(m + 32, base + BigInt(OFF_CTL + CTL * i), true);
  dv.setBigUint64(m + 40, BigInt(CTL), true);
  dv.setBigUint64(OFF_IOV + 16 * i, base + BigInt(OFF_DATA + SLOT * i), true);
  dv.setBigUint64(OFF_IOV + 16 * i + 8, BigInt(SLOT), true);
}
const s = dgram.createSocket("udp4");
s.bind(0, "127.0.0.1", () => {
  const sym = Object.getOwnPropertySymbols(s).find(x => x.description === "state symbol");
  const h = s[sym].handle; const fd = h.fd;
  h.recvStop();
  const one = new Int32Array([1]);
  console.log("setsockopt", setsockopt(fd, 1, 35, one, 4));
  const ep = epoll_create1(0);
  const ev = new Uint8Array(16); const evdv = new DataView(ev.buffer);
  evdv.setUint32(0, 1, true); evdv.setUint32(4, 7, true);
  console.log("ctl", epoll_ctl(ep, 1, fd, ev));
  const c = dgram.createSocket("udp4");
  let sent = 0;
  const port = s.address().port;
  for (let i = 0; i < 5; i++) c.send(Buffer.from([0x80, i, 1, 2, 3]), port, "127.0.0.1");
  setTimeout(() => {
    const evs = new Uint8Array(12 * 8);
    const n = epoll_wait(ep, evs, 8, 0);
    console.log("epoll n", n, new DataView(evs.buffer).getUint32(4, true));
    const got = recvmmsg(fd, ptr, N, 0x40, null);
    console.log("recvmmsg", got, koffi.errno());
    const now = Date.now();
    for (let i = 0; i < got; i++) {
      const m = OFF_MSG + 64 * i;
      const len = dv.getUint32(m + 56, true);
      const cl = Number(dv.getBigUint64(m + 40, true));
      const c0 = OFF_CTL + CTL * i;
      const clen = Number(dv.getBigUint64(c0, true)), lvl = dv.getInt32(c0 + 8, true), typ = dv.getInt32(c0 + 12, true);
      const sec = Number(dv.getBigInt64(c0 + 16, true)), ns = Number(dv.getBigInt64(c0 + 24, true));
      const nm = OFF_NAME + NAME * i;
      console.log(i, "len", len, "ctl", cl, clen, lvl, typ, "stamp age ms", now - (sec * 1000 + ns / 1e6), "fam", dv.getUint16(nm, true), "port", dv.getUint16(nm + 2, false), u8.subarray(OFF_DATA + SLOT * i, OFF_DATA + SLOT * i + len));
    }
    c.close(); s.close();
  }, 50);
});
