// Preloaded with `node -r` into simple-whip-server, whose server.js calls listen(port) and so
// would listen on every interface: a listen() without a host gets 127.0.0.1 (WHIP_HOST instead,
// when start.sh runs in a test's own network namespace).
const net = require("node:net");

const host = process.env.WHIP_HOST ?? "127.0.0.1";

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const first = args[0];
  if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    if (typeof args[1] !== "string") args.splice(1, 0, host);
  } else if (first && typeof first === "object" && first.port !== undefined && first.host === undefined) {
    args[0] = { ...first, host };
  }
  return listen.apply(this, args);
};
