import { createRequire } from "node:module";
import dgram from "node:dgram";
const require = createRequire(import.meta.url);
const koffi = require("koffi");
const libc = koffi.load("libc.so.6");
const ioctl = libc.func("int ioctl(int fd, unsigned long req, _Inout_ void *arg)");
const cg = libc.func("int clock_gettime(int clk, _Out_ void *ts)");
const errno = koffi.errno;
const buf = new Int32Array(4);
const s = dgram.createSocket("udp4");
s.bind(0, "127.0.0.1", () => {
  const sym = Object.getOwnPropertySymbols(s).find(x => x.description === "state symbol");
  const fd = s[sym].handle.fd;
  console.log("fd", fd, "first ioctl", ioctl(fd, 0x8907, buf), errno(), Array.from(buf));
  const c = dgram.createSocket("udp4");
  let n = 0;
  s.on("message", () => {
    const r = ioctl(fd, 0x8907, buf);
    const t = new Int32Array(4); cg(0, t);
    const st = buf[0] * 1e9 + buf[2], now = t[0]*1e9 + t[2];
    console.log("rx", r, (now - st)/1e3, "us");
    if (++n === 3) { s.close(); c.close(); }
    const t0 = process.hrtime.bigint(); for (let i=0;i<100000;i++) ioctl(fd, 0x8907, buf); console.log("ioctl ns", Number(process.hrtime.bigint()-t0)/1e5);
    const t1 = process.hrtime.bigint(); for (let i=0;i<100000;i++) cg(0, t); console.log("cg ns", Number(process.hrtime.bigint()-t1)/1e5);
  });
  for (let i = 0; i < 3; i++) c.send("x", s.address().port, "127.0.0.1");
});
